import { api, type Page } from './api.ts';
import type { Team, VirtualKey } from './types.ts';

/** Every key and team (the first 200 of each), for lists and for the filters that pick one. */
export async function loadOwners(): Promise<{ keys: VirtualKey[]; teams: Team[] }> {
  const [keys, teams] = await Promise.all([
    api<Page<VirtualKey>>('GET', '/admin/keys?limit=200'),
    api<Page<Team>>('GET', '/admin/teams?limit=200'),
  ]);
  return { keys: keys.data, teams: teams.data };
}
