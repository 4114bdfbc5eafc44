// RealtimeProvider runs the socket machine while someone is signed in, and offers
// hooks: useRealtimeEvent (listen to one server event), useRoom (join a room while
// mounted), useResync (refetch when the server could not replay) and useOnline.
import { createContext, useContext, useEffect, useRef, type ReactNode } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise, type ActorRefFrom } from 'xstate';
import { connectionActor, roomKey, socketMachine, type Room } from '../machines/socket.machine';
import { socketIoTransport, type ServerEventName } from '../api/socket';
import { http } from '../api/client';

export const liveSocketMachine = socketMachine.provide({
  actors: {
    connection: connectionActor(socketIoTransport, () => http.token),
    refreshToken: fromPromise(async () => {
      await http.refresh();
    }),
  },
});

type SocketRef = ActorRefFrom<typeof socketMachine>;

const RealtimeContext = createContext<SocketRef | null>(null);

export function RealtimeProvider({
  active,
  children,
  machine = liveSocketMachine,
}: {
  active: boolean;
  children: ReactNode;
  machine?: typeof socketMachine;
}) {
  const actor = useActorRef(machine);
  useEffect(() => {
    actor.send({ type: active ? 'socket.start' : 'socket.stop' });
  }, [active, actor]);
  return <RealtimeContext.Provider value={actor}>{children}</RealtimeContext.Provider>;
}

export function useSocketActor(): SocketRef | null {
  return useContext(RealtimeContext);
}

export function useRealtimeEvent<T = unknown>(name: ServerEventName, handler: (payload: T) => void): void {
  const actor = useSocketActor();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (!actor) return;
    const sub = actor.on('realtime', (e) => {
      if (e.name === name) ref.current(e.payload as T);
    });
    return () => sub.unsubscribe();
  }, [actor, name]);
}

export function useResync(handler: () => void): void {
  const actor = useSocketActor();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (!actor) return;
    const sub = actor.on('resync', () => ref.current());
    return () => sub.unsubscribe();
  }, [actor]);
}

export function useRoom(room: Room | null): void {
  const actor = useSocketActor();
  const key = room ? roomKey(room) : null;
  const roomRef = useRef(room);
  roomRef.current = room;
  useEffect(() => {
    const r = roomRef.current;
    if (!actor || !r) return;
    actor.send({ type: 'socket.join', room: r });
    return () => actor.send({ type: 'socket.leave', room: r });
  }, [actor, key]);
}

export function useOnline(): boolean {
  const actor = useSocketActor();
  return useSelector(actor ?? undefined, (s) => (s ? s.matches({ active: 'connected' }) : false)) ?? false;
}
