import type { Store } from '../../src/store/types';
import { expectSlotFree } from '../../src/store/types';

export const DAY = 86_400_000;
export const YEAR_1900 = Date.UTC(1900, 0, 1); // negative epoch ms
export const YEAR_2200 = Date.UTC(2200, 11, 31, 23, 59, 59, 999); // beyond 32-bit integers

/**
 * Data whose copy shows every detail a migration must keep: deleted records leave the id
 * sequences ahead of the highest ids (songs 4, services 3 and users 3 are gone); a link inserted
 * between two others, so link order (seq) and position differ; dates beyond 32 bits and before 1970;
 * a changed password (token version 1); artists needing trimming, case folding and NFC; licensing
 * details in full, in part and not at all (and on the deleted song, so none must survive it).
 *
 * Resulting setlists: service 1 (1900) = Amazing Grace, Crown Him, Be Thou My Vision;
 * service 2 (2200) = Crown Him.
 */
export async function populateRichly(store: Store): Promise<void> {
  const [a, b, c, gone] = [
    await store.createSong({ name: 'Amazing Grace', artists: ['John Newton', ''], ccliNumber: '22025', copyright: 'Public Domain' }),
    await store.createSong({ name: 'Be Thou My Vision', artists: ['Traditional Irish', '  BEYONCE\u0301 '], copyright: 'Words: Mary Byrne, 1905' }),
    await store.createSong({ name: 'Crown Him', artists: [] }),
    await store.createSong({ name: 'Deleted', artists: ['x'], ccliNumber: '7654321' }),
  ];
  await store.deleteSong(gone.id);
  const early = expectSlotFree(await store.createService({ date: YEAR_1900, serviceType: 'SUN_AM' }));
  const late = expectSlotFree(await store.createService({ date: YEAR_2200, serviceType: 'WED' }));
  const dropped = expectSlotFree(await store.createService({ date: 0, serviceType: 'SUN_PM' }));
  await store.deleteService(dropped.id);
  await store.linkSong(early.id, a.id);
  await store.linkSong(early.id, b.id);
  await store.linkSong(early.id, c.id, 2);
  await store.linkSong(late.id, c.id);
  const admin = await store.createUser({ username: 'Admin', passwordHash: 'scrypt$admin', role: 'ADMIN' });
  await store.createUser({ username: 'worship.leader', passwordHash: 'scrypt$leader', role: 'USER' });
  const temp = await store.createUser({ username: 'temp', passwordHash: 'scrypt$temp', role: 'USER' });
  await store.deleteUser(temp!.id);
  await store.updateUser(admin!.id, { passwordHash: 'scrypt$admin2' });
}
