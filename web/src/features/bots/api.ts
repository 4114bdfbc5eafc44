// The reception-menu bot's REST calls and types (docs/api.md, "Reception-menu bots";
// docs/bots.md). A level's commandBot is the number the customer answers.
import { http } from '../../api/client';
import type { ID } from '../../api/types';

export const commandTypes = ['queue', 'user', 'message', 'menu'] as const;
export type CommandType = (typeof commandTypes)[number];

export interface BotLevelInput {
  parentId: ID;
  commandBot: string;
  descriptionBot: string;
  commandType: CommandType;
  showMessage: string;
  userId: ID;
  queueId: ID;
}

export interface BotLevel extends BotLevelInput {
  id: ID;
}

export interface BotEvent {
  action: 'create' | 'update' | 'delete' | 'reorder';
  bot?: BotLevel;
  botId?: ID;
  bots?: BotLevel[];
}

export const botsApi = {
  list: (): Promise<{ bots: BotLevel[] }> => http.get<{ bots: BotLevel[] }>('/bots'),
  create: (body: BotLevelInput): Promise<BotLevel> => http.post<BotLevel>('/bots', { body }),
  update: (id: ID, body: BotLevelInput): Promise<BotLevel> => http.put<BotLevel>(`/bots/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/bots/${id}`),
  reorder: (parentId: ID, ids: ID[]): Promise<{ bots: BotLevel[] }> =>
    http.post<{ bots: BotLevel[] }>('/bots/reorder', { body: { parentId, ids } }),
};

// children: the options of the menu below parent (0: the first menu), by number.
export function children(levels: BotLevel[], parent: ID): BotLevel[] {
  return levels.filter((l) => (l.parentId || 0) === parent).sort((a, b) => Number(a.commandBot) - Number(b.commandBot) || a.id - b.id);
}

// applyEvent folds a realtime "bot" event into the list.
export function applyEvent(levels: BotLevel[], e: BotEvent): BotLevel[] {
  switch (e.action) {
    case 'create':
    case 'update':
      return e.bot ? [...levels.filter((l) => l.id !== e.bot!.id), e.bot] : levels;
    case 'reorder': {
      const moved = new Map((e.bots ?? []).map((b) => [b.id, b]));
      return levels.map((l) => moved.get(l.id) ?? l);
    }
    case 'delete': {
      // The level and everything below it.
      const gone = new Set<ID>([e.botId ?? 0]);
      let grew = true;
      while (grew) {
        grew = false;
        for (const l of levels) if (!gone.has(l.id) && gone.has(l.parentId)) (gone.add(l.id), (grew = true));
      }
      return levels.filter((l) => !gone.has(l.id));
    }
  }
  return levels;
}

// nextCommand is the first free number among parent's options.
export function nextCommand(levels: BotLevel[], parent: ID): string {
  const used = new Set(children(levels, parent).map((l) => Number(l.commandBot)));
  let n = 1;
  while (used.has(n)) n++;
  return String(n);
}
