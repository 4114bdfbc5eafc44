// The internal chat's list, shared by the top bar popover and the /chats page: loaded
// once per session from GET /chats/, then kept current by the realtime "chat" event
// (participants only) and reloaded when the socket could not replay what it missed.
// New messages are also handed to whoever shows that chat's conversation.
import { useEffect, useSyncExternalStore } from 'react';
import { chatsApi } from '../../api/endpoints';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import type { ID, InternalChat, InternalChatEvent, InternalChatMessage } from '../../api/types';

// The most chats the list keeps (5 pages of 20); the page's search asks the server.
const maxPages = 5;

type MessageListener = (m: InternalChatMessage) => void;

export class ChatStore {
  private chats = new Map<ID, InternalChat>();
  private sorted: InternalChat[] = [];
  private listeners = new Set<() => void>();
  private messageListeners = new Set<MessageListener>();
  private loading: Promise<void> | null = null;
  loaded = false;

  constructor(private readonly api: Pick<typeof chatsApi, 'list'> = chatsApi) {}

  subscribe = (fn: () => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  snapshot = () => this.sorted;

  onMessage(fn: MessageListener): () => void {
    this.messageListeners.add(fn);
    return () => this.messageListeners.delete(fn);
  }

  get(id: ID): InternalChat | undefined {
    return this.chats.get(id);
  }

  load(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const next = new Map<ID, InternalChat>();
        for (let page = 1; page <= maxPages; page++) {
          const r = await this.api.list('', page);
          for (const c of r.records ?? []) next.set(c.id, c);
          if (!r.hasMore) break;
        }
        this.chats = next;
        this.loaded = true;
        this.changed();
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }

  // upsert keeps the newer of two views of a chat (events may arrive after a fetch).
  upsert(c: InternalChat): void {
    const old = this.chats.get(c.id);
    if (old && old.updatedAt > c.updatedAt && old.users.length === c.users.length) {
      this.chats.set(c.id, { ...old, users: c.users });
    } else {
      this.chats.set(c.id, c);
    }
    this.changed();
  }

  remove(id: ID): void {
    if (this.chats.delete(id)) this.changed();
  }

  apply(ev: InternalChatEvent, me: ID): void {
    if (ev.action === 'delete') {
      this.remove(Number(ev.id));
      return;
    }
    const chat = ev.chat;
    if (!chat) return;
    // A chat that no longer lists me (I was taken out) leaves my list.
    if (!chat.users?.some((u) => u.userId === me)) {
      this.remove(chat.id);
      return;
    }
    this.upsert(chat);
    if (ev.action === 'new-message') for (const fn of this.messageListeners) fn(ev.newMessage);
  }

  reset(): void {
    this.chats.clear();
    this.loaded = false;
    this.changed();
  }

  private changed(): void {
    this.sorted = [...this.chats.values()].sort((a, b) =>
      a.updatedAt === b.updatedAt ? b.id - a.id : a.updatedAt < b.updatedAt ? 1 : -1,
    );
    for (const fn of this.listeners) fn();
  }
}

export const chatStore = new ChatStore();

export function unreadsOf(chat: InternalChat, me: ID): number {
  return chat.users.find((u) => u.userId === me)?.unreads ?? 0;
}

// chatName: the title of a group, or the other participants' names.
export function chatName(chat: InternalChat, me: ID): string {
  if (chat.title) return chat.title;
  return chat.users
    .filter((u) => u.userId !== me)
    .map((u) => u.user?.name ?? `#${u.userId}`)
    .join(', ');
}

// useChatFeed keeps chatStore current while mounted (the top bar mounts it once).
export function useChatFeed(me: ID): void {
  useEffect(() => {
    chatStore.reset();
    void chatStore.load().catch(() => {});
  }, [me]);
  useRealtimeEvent<InternalChatEvent>('chat', (ev) => chatStore.apply(ev, me));
  useResync(() => void chatStore.load().catch(() => {}));
}

export function useChats(): InternalChat[] {
  return useSyncExternalStore(chatStore.subscribe, chatStore.snapshot);
}

export function useUnreadChats(me: ID): number {
  return useChats().reduce((n, c) => n + (unreadsOf(c, me) > 0 ? 1 : 0), 0);
}
