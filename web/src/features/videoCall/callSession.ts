// One video call in this window, either party (docs/calls.md): the call machine
// (machines/call.machine.ts) holds the call's state and rules; this session runs its
// effects — the camera and microphone, the RTCPeerConnection and the signalling
// socket — and turns what they report into machine events. No React: the pages
// subscribe to its view.
//
// The attendant offers: it joins at once and sends an offer whenever the customer
// joins (again). The customer joins only after answering, then answers the offer.
// Hold is shared: either party's hold puts both on hold, and a party on hold sends
// no audio or video.
import { createActor, type Subscription } from 'xstate';
import { callErrors, callMachine } from '../../machines/call.machine';
import { openCallSocket, type CallFrame, type CallRole, type CallSocket, type CallSocketFactory, type OutSignal } from '../../api/callSocket';

export type CallStep = 'idle' | 'ringing' | 'answering' | 'dialing' | 'talking' | 'held';

export interface CallView {
  step: CallStep;
  // How the call finished: null while it has not.
  outcome: 'ended' | 'failed' | null;
  // i18n key of what to tell the user (a refusal or why the call failed).
  messageKey: string | null;
  muted: boolean;
  // The other party put the call on hold.
  remoteHeld: boolean;
  local: MediaStream | null;
  remote: MediaStream | null;
  // When the call connected (ms since the epoch).
  connectedAt: number | null;
}

export interface CallSessionOptions {
  role: CallRole;
  // The socket's credential: the attendant's access token or the customer's call token.
  socketToken: string;
  // The attendant's call token and call id (POST /tickets/{id}/video-call).
  attendantToken?: string;
  callId?: string;
  openSocket?: CallSocketFactory;
  getUserMedia?: (c: MediaStreamConstraints) => Promise<MediaStream>;
  createPeer?: (c: RTCConfiguration) => RTCPeerConnection;
}

export class CallSession {
  private readonly opts: CallSessionOptions;
  private readonly actor = createActor(callMachine, { input: { voipConnected: false, channelBusy: false } });
  private readonly listeners = new Set<(v: CallView) => void>();
  private readonly subs: Subscription[] = [];
  private socket: CallSocket | null = null;
  private pc: RTCPeerConnection | null = null;
  private ice: RTCIceServer[] = [];
  private pending: RTCIceCandidateInit[] = [];
  private callId: string;
  private finished = false;
  view: CallView = { step: 'idle', outcome: null, messageKey: null, muted: false, remoteHeld: false, local: null, remote: null, connectedAt: null };

  constructor(opts: CallSessionOptions) {
    this.opts = opts;
    this.callId = opts.callId ?? '';
    this.subs.push(
      this.actor.subscribe((s) => {
        const step: CallStep = s.matches('idle')
          ? 'idle'
          : s.matches({ busy: 'ringing' })
            ? 'ringing'
            : s.matches({ busy: 'answering' })
              ? 'answering'
              : s.matches({ busy: 'dialing' })
                ? 'dialing'
                : s.matches({ busy: { active: 'held' } })
                  ? 'held'
                  : 'talking';
        const connectedAt = step === 'talking' || step === 'held' ? (this.view.connectedAt ?? Date.now()) : this.view.connectedAt;
        this.set({ step, muted: s.context.muted, connectedAt });
        this.applyTracks();
      }),
      this.actor.on('refused', (e) => this.set({ messageKey: e.messageKey })),
      this.actor.on('ended', (e) => {
        if (e.reason === 'timeout') void this.send({ type: 'end' });
        this.finish('ended', null);
      }),
      this.actor.on('failed', (e) => this.finish('failed', e.messageKey)),
    );
    this.actor.start();
  }

  subscribe(fn: (v: CallView) => void): () => void {
    this.listeners.add(fn);
    fn(this.view);
    return () => this.listeners.delete(fn);
  }

  // start: the attendant dials; the customer's page checks its link and rings.
  async start(): Promise<void> {
    this.socket = (this.opts.openSocket ?? openCallSocket)(this.opts.socketToken, {
      onFrame: (f) => void this.onFrame(f),
      onClosed: (reason) => {
        if (this.finished) return;
        // A refused handshake: the link (or the attendant's session) is not valid.
        const refused = /^ERR_(INVALID_TOKEN|SESSION_EXPIRED)/.test(reason);
        const messageKey = refused ? callErrors.link : callErrors.failed;
        if (this.view.step === 'idle') this.finish('failed', messageKey);
        else this.actor.send({ type: 'call.failed', reason, messageKey });
      },
    });
    if (this.opts.role === 'customer') {
      this.actor.send({ type: 'call.incoming', callId: this.callId || 'link', kind: 'video' });
      return;
    }
    this.actor.send({ type: 'call.outgoing', callId: this.callId, kind: 'video' });
    if (!(await this.openMedia())) return;
    try {
      const ack = await this.socket.join(this.opts.attendantToken);
      this.ice = ack.iceServers;
      this.acked = true;
      // The customer may have been there first: its "joined" came before our ack.
      if (this.peerJoined) await this.offer();
    } catch (e) {
      this.actor.send({ type: 'call.failed', reason: String(e), messageKey: callErrors.link });
    }
  }

  // The attendant's join was acknowledged; the customer joined.
  private acked = false;
  private peerJoined = false;

  // answer: the customer takes the call (refused while the camera is held by another
  // program: 'O canal atual está ocupado').
  async answer(): Promise<void> {
    if (this.view.step !== 'ringing' || !this.socket) return;
    if (!(await this.openMedia())) return;
    this.actor.send({ type: 'call.answer' });
    if (this.actor.getSnapshot().matches({ busy: 'ringing' })) return; // refused
    try {
      const ack = await this.socket.join();
      this.ice = ack.iceServers;
      this.callId = ack.callId;
    } catch (e) {
      this.actor.send({ type: 'call.failed', reason: String(e), messageKey: callErrors.link });
    }
  }

  hold(): void {
    if (this.view.step !== 'talking') return;
    this.actor.send({ type: 'call.hold' });
    void this.send({ type: 'hold' });
  }

  unhold(): void {
    if (this.view.step !== 'held') return;
    this.actor.send({ type: 'call.unhold' });
    this.set({ remoteHeld: false });
    void this.send({ type: 'unhold' });
  }

  mute(): void {
    this.actor.send({ type: 'call.mute' });
  }

  async hangup(): Promise<void> {
    if (this.finished) return;
    await this.send({ type: 'end' });
    if (this.view.step === 'idle') this.finish('ended', null);
    else this.actor.send({ type: 'call.ended' });
  }

  // dispose ends everything without telling the peer (the page goes away; the
  // server tells the peer the socket is gone).
  dispose(): void {
    this.finish(this.view.outcome ?? 'ended', this.view.messageKey);
    this.subs.forEach((s) => s.unsubscribe());
    this.actor.stop();
  }

  private async openMedia(): Promise<boolean> {
    if (this.view.local) return true;
    const gum = this.opts.getUserMedia ?? ((c) => navigator.mediaDevices.getUserMedia(c));
    try {
      const local = await gum({ audio: true, video: { width: 640, height: 480 } });
      this.set({ local });
      return true;
    } catch (e) {
      if (e instanceof DOMException && e.name === 'NotReadableError' && this.opts.role === 'customer') {
        // The device is taken: the machine refuses the answer with its rule.
        this.actor.send({ type: 'call.channel', busy: true });
        this.actor.send({ type: 'call.answer' });
        this.actor.send({ type: 'call.channel', busy: false });
        return false;
      }
      this.actor.send({ type: 'call.failed', reason: String(e), messageKey: callErrors.media });
      return false;
    }
  }

  private newPeer(): RTCPeerConnection {
    this.pc?.close();
    this.pending = [];
    const pc = (this.opts.createPeer ?? ((c) => new RTCPeerConnection(c)))({ iceServers: this.ice });
    for (const track of this.view.local?.getTracks() ?? []) pc.addTrack(track, this.view.local!);
    pc.onicecandidate = (e) => {
      if (e.candidate && e.candidate.candidate) void this.send({ type: 'candidate', candidate: e.candidate.toJSON() });
    };
    pc.ontrack = (e) => this.set({ remote: e.streams[0] ?? new MediaStream([e.track]) });
    pc.onconnectionstatechange = () => {
      if (pc !== this.pc) return;
      if (pc.connectionState === 'connected') this.actor.send({ type: 'call.confirmed' });
      if (pc.connectionState === 'failed') this.actor.send({ type: 'call.failed', reason: 'ice failed', messageKey: callErrors.failed });
    };
    this.pc = pc;
    return pc;
  }

  private async offer(): Promise<void> {
    const pc = this.newPeer();
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    await this.send({ type: 'offer', sdp: offer.sdp ?? '' });
  }

  private async onFrame(f: CallFrame): Promise<void> {
    if (this.finished) return;
    try {
      switch (f.type) {
        case 'joined':
          if (this.opts.role === 'attendant') {
            this.peerJoined = true;
            if (this.acked) await this.offer();
          }
          break;
        case 'offer': {
          const pc = this.newPeer();
          await pc.setRemoteDescription({ type: 'offer', sdp: f.sdp });
          await this.flush();
          const answer = await pc.createAnswer();
          await pc.setLocalDescription(answer);
          await this.send({ type: 'answer', sdp: answer.sdp ?? '' });
          break;
        }
        case 'answer':
          await this.pc?.setRemoteDescription({ type: 'answer', sdp: f.sdp });
          await this.flush();
          break;
        case 'candidate':
          if (this.pc?.remoteDescription) await this.pc.addIceCandidate(f.candidate);
          else this.pending.push(f.candidate);
          break;
        case 'hold':
          this.set({ remoteHeld: true });
          this.actor.send({ type: 'call.hold' });
          break;
        case 'unhold':
          this.set({ remoteHeld: false });
          this.actor.send({ type: 'call.unhold' });
          break;
        case 'end':
          this.actor.send({ type: 'call.ended' });
          break;
        case 'gone':
          this.actor.send({ type: 'call.failed', reason: 'peer gone', messageKey: callErrors.failed });
          break;
        case 'replaced':
          this.actor.send({ type: 'call.failed', reason: 'replaced', messageKey: callErrors.replaced });
          break;
      }
    } catch (e) {
      this.actor.send({ type: 'call.failed', reason: String(e), messageKey: callErrors.failed });
    }
  }

  private async flush(): Promise<void> {
    const queued = this.pending;
    this.pending = [];
    for (const c of queued) await this.pc?.addIceCandidate(c);
  }

  private async send(s: OutSignal): Promise<void> {
    if (!this.socket || !this.callId) return;
    try {
      await this.socket.signal(this.callId, s);
    } catch {
      // A lost signal surfaces as a call that does not connect or a peer that goes.
    }
  }

  // applyTracks: the microphone follows mute and hold, the camera follows hold.
  private applyTracks(): void {
    const held = this.view.step === 'held';
    for (const t of this.view.local?.getAudioTracks() ?? []) t.enabled = !held && !this.view.muted;
    for (const t of this.view.local?.getVideoTracks() ?? []) t.enabled = !held;
  }

  private finish(outcome: 'ended' | 'failed', messageKey: string | null): void {
    if (this.finished) return;
    this.finished = true;
    this.pc?.close();
    this.pc = null;
    for (const t of this.view.local?.getTracks() ?? []) t.stop();
    this.socket?.close();
    this.set({ outcome, messageKey: messageKey ?? this.view.messageKey, remote: null });
  }

  private set(patch: Partial<CallView>): void {
    this.view = { ...this.view, ...patch };
    for (const l of this.listeners) l(this.view);
  }
}
