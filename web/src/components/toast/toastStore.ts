// Toasts: a tiny store read by <Toaster/>. Every toast closes itself after 3 s
// (spec section 8).
export const toastDurationMs = 3000;

export type ToastKind = 'success' | 'error' | 'info';

export interface ToastItem {
  id: number;
  kind: ToastKind;
  text: string;
  // key names the fact the toast reports; a second toast with the key of one still
  // showing is dropped (one fact can arrive twice: from the HTTP answer and from the
  // socket event of the same change).
  key?: string;
}

type Listener = () => void;

let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<Listener>();
const timers = new Map<number, ReturnType<typeof setTimeout>>();

function publish(next: ToastItem[]) {
  items = next;
  for (const l of [...listeners]) l();
}

function push(kind: ToastKind, text: string, key?: string): number {
  const showing = key === undefined ? undefined : items.find((i) => i.key === key);
  if (showing) return showing.id;
  const id = nextId++;
  publish([...items, key === undefined ? { id, kind, text } : { id, kind, text, key }]);
  timers.set(
    id,
    setTimeout(() => dismiss(id), toastDurationMs),
  );
  return id;
}

export function dismiss(id: number): void {
  const t = timers.get(id);
  if (t) clearTimeout(t);
  timers.delete(id);
  if (items.some((i) => i.id === id)) publish(items.filter((i) => i.id !== id));
}

export const toast = {
  success: (text: string, key?: string) => push('success', text, key),
  error: (text: string, key?: string) => push('error', text, key),
  info: (text: string, key?: string) => push('info', text, key),
};

export const toastStore = {
  getSnapshot: (): ToastItem[] => items,
  subscribe(l: Listener): () => void {
    listeners.add(l);
    return () => void listeners.delete(l);
  },
  clear(): void {
    for (const t of timers.values()) clearTimeout(t);
    timers.clear();
    publish([]);
  },
};
