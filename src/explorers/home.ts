/**
 * The page a browser gets at `/`: where to go, as links. No script and no style of its own, so it
 * works under the explorers' 'self'-only CSP; JSON clients get the JSON index instead.
 */

export interface HomeLinks {
  insights: string;
  plan: string;
  graphiql: string;
  docs: string;
  openapi: string;
  graphql: string;
  health: string;
  ready: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function homePage(name: string, description: string, links: HomeLinks): string {
  const a = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(name)}</title>
<link rel="icon" href="data:,">
</head>
<body>
<main>
<h1>${escapeHtml(name)}</h1>
<p>${escapeHtml(description)}.</p>
<ul>
<li>${a(links.insights, 'Insights')}: what the team has been singing, drawn from the records.</li>
<li>${a(links.plan, 'Plan a service')}: build next Sunday's setlist beside suggestions from the history.</li>
<li>${a(links.graphiql, 'GraphiQL')}: write and run GraphQL queries against <code>${escapeHtml(links.graphql)}</code>.</li>
<li>${a(links.docs, 'Swagger UI')}: every operation of the REST API v1, with "Try it out".</li>
<li>${a(links.openapi, 'OpenAPI document')} of the REST API, for client generators.</li>
<li>${a(links.health, 'Liveness')} and ${a(links.ready, 'readiness')} checks.</li>
</ul>
<p>The users' reference (every route, GraphQL name, status, error and limit) is
<code>docs/API.md</code> in the service's source repository; the operators' guide is
<code>docs/operations.md</code>.</p>
<p>API clients asking for JSON at this address get this index as JSON.</p>
</main>
</body>
</html>
`;
}
