// The song story's header: name, artists and headline numbers (its two charts are Panels).

import { storyStats } from './views.js';

const make = (tag, props) => Object.assign(document.createElement(tag), props);

export class StoryHeader {
  constructor(section) {
    this.section = section;
    this.title = section.querySelector('#story-h');
    this.artists = section.querySelector('.story-artists');
    this.stats = section.querySelector('.stats');
    this.subs = section.querySelectorAll('.sub');
    // Which numbers are the window's and which the song's whole history.
    this.scope = make('p', { className: 'hint story-note' });
    this.stats.after(this.scope);
  }

  loading() {
    this.section.setAttribute('aria-busy', 'true');
    this.title.textContent = 'Loading the song…';
  }

  note(kind, text) {
    this.section.removeAttribute('aria-busy');
    this.title.textContent = 'Song story';
    this.artists.textContent = '';
    this.stats.replaceChildren(make('p', { className: `status ${kind}`, textContent: text }));
    this.scope.textContent = '';
    for (const sub of this.subs) sub.hidden = true;
  }

  error(message) {
    this.note('error', `Could not load the song: ${message}`);
  }

  /** An id in the URL that names no song (deleted, or mistyped): say so; nothing else to show. */
  missing(id) {
    this.note('empty', `There is no song with id ${id}: it may have been deleted. Pick a song from the charts below.`);
  }

  /** `windowText`: the window in words ("1 Jan 2025 to 31 Mar 2025"), or null for all time. */
  show(song, serviceTypes, windowText) {
    this.section.removeAttribute('aria-busy');
    for (const sub of this.subs) sub.hidden = false;
    this.title.textContent = song.name;
    this.artists.textContent = song.artists.filter(Boolean).join(', ');
    this.scope.textContent = windowText
      ? `Counts are for the window shown (${windowText}); first and last sung are of all time.`
      : 'All time: every number is of the whole history.';
    this.stats.replaceChildren(
      ...storyStats(song.usage, song.ever, serviceTypes, !windowText).map(([term, value]) => {
        const pair = make('div', {});
        pair.append(make('dt', { textContent: term }), make('dd', { textContent: String(value) }));
        return pair;
      }),
    );
  }
}
