// Toasts: a tiny store read by <Toaster/>. Every toast closes itself after 3 s
// (spec section 8).
export const toastDurationMs = 3000;

export type ToastKind = 'success' | 'error' | 'info';

export interface ToastItem {
  id: number;
  kind: ToastKind;
  text: string;
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

function push(kind: ToastKind, text: string): number {
  const id = nextId++;
  publish([...items, { id, kind, text }]);
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
  success: (text: string) => push('success', text),
  error: (text: string) => push('error', text),
  info: (text: string) => push('info', text),
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
