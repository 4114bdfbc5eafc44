// The composer and recorder machines wired to the api and the browser.
import { fromCallback, fromPromise } from 'xstate';
import { composerMachine, type OutgoingMessage } from '../../machines/composer.machine';
import { recorderMachine, type RecorderCommand, type RecorderEvent } from '../../machines/recorder.machine';
import { messagesApi } from '../../api/endpoints';

// The signature toggle prefixes the text with the attendant's name, in bold.
export function signed(body: string, name: string): string {
  return `*${name}:*\n${body}`;
}

export function sendOutgoing(m: OutgoingMessage, userName: string): Promise<unknown> {
  const body = m.sign ? signed(m.body, userName) : m.body;
  switch (m.mode) {
    case 'whisper':
      return messagesApi.whisper(m.ticketId, body);
    case 'askAI':
      return messagesApi.askAI(m.ticketId, body);
    default:
      return messagesApi.send(m.ticketId, {
        body,
        fromMe: true,
        read: true,
        mediaUrl: '',
        quotedMsg: m.quotedMsgId ? { id: m.quotedMsgId } : null,
        textToAudio: m.mode === 'textToAudio' || undefined,
        translateTo: m.language ?? undefined,
      });
  }
}

export function liveComposerMachine(userName: string) {
  return composerMachine.provide({
    actors: { send: fromPromise(({ input }) => sendOutgoing(input, userName)) },
  });
}

const audioTypes = ['audio/ogg;codecs=opus', 'audio/webm;codecs=opus', 'audio/webm', 'audio/mp4'];

function pickAudioType(): string | undefined {
  if (typeof MediaRecorder === 'undefined') return undefined;
  return audioTypes.find((t) => MediaRecorder.isTypeSupported(t));
}

function extensionOf(type: string): string {
  if (type.includes('ogg')) return 'ogg';
  if (type.includes('mp4')) return 'm4a';
  return 'weba';
}

export const liveRecorderMachine = recorderMachine.provide({
  actors: {
    microphone: fromPromise(() => navigator.mediaDevices.getUserMedia({ audio: true })),
    recorder: fromCallback<RecorderCommand, { stream: MediaStream }, RecorderEvent>(({ input, receive, sendBack }) => {
      const mimeType = pickAudioType();
      const rec = new MediaRecorder(input.stream, { mimeType, audioBitsPerSecond: 128000 });
      const chunks: Blob[] = [];
      rec.ondataavailable = (e) => e.data.size > 0 && chunks.push(e.data);
      rec.onstop = () => sendBack({ type: 'recorder.data', blob: new Blob(chunks, { type: rec.mimeType || mimeType }) });
      rec.start();
      receive((cmd) => {
        if (cmd.type === 'stop' && rec.state !== 'inactive') rec.stop();
      });
      return () => {
        rec.ondataavailable = null;
        rec.onstop = null;
        if (rec.state !== 'inactive') rec.stop();
        input.stream.getTracks().forEach((t) => t.stop());
      };
    }),
    upload: fromPromise(({ input }) => {
      const type = input.blob.type || 'audio/webm';
      return messagesApi.sendMedia(input.ticketId, input.blob, `audio-${Date.now()}.${extensionOf(type)}`);
    }),
  },
});
