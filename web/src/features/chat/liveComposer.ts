// The composer and recorder machines wired to the api and the browser.
import { fromCallback, fromPromise } from 'xstate';
import { composerMachine, type OutgoingMessage } from '../../machines/composer.machine';
import { recorderMachine, type RecorderCommand, type RecorderEvent } from '../../machines/recorder.machine';
import { messagesApi } from '../../api/endpoints';

// Channels whose apps render WhatsApp's markup (*bold*). Web chat shows text as typed,
// Messenger and Instagram have no markup, and Telegram's adapter sends plain text
// (its own markup needs parse_mode): on those, asterisks would show as written.
const boldChannels = new Set(['whatsapp', 'waba']);

// The signature toggle prefixes the text with the attendant's name: in bold where the
// channel renders *bold*, plain elsewhere. Internal notes (whispers) are read in our
// own app, which shows text as written: plain too.
export function signed(body: string, name: string, channel?: string, whisper = false): string {
  if (!whisper && channel !== undefined && boldChannels.has(channel)) return `*${name}:*\n${body}`;
  return `${name}:\n${body}`;
}

export function sendOutgoing(m: OutgoingMessage, userName: string, channel?: string): Promise<unknown> {
  const body = m.sign ? signed(m.body, userName, channel, m.mode === 'whisper') : m.body;
  switch (m.mode) {
    case 'whisper':
      return messagesApi.whisper(m.ticketId, body);
    case 'askAI':
      return messagesApi.askAI(m.ticketId, body);
    case 'textToAudio':
      return messagesApi.sendSpoken(m.ticketId, body);
    case 'translation':
      return messagesApi.sendTranslated(m.ticketId, body, m.language ?? 'gb');
    default:
      return messagesApi.send(m.ticketId, {
        body,
        fromMe: true,
        read: true,
        mediaUrl: '',
        quotedMsg: m.quotedMsgId ? { id: m.quotedMsgId } : null,
      });
  }
}

export function liveComposerMachine(userName: string, channel?: string) {
  return composerMachine.provide({
    actors: { send: fromPromise(({ input }) => sendOutgoing(input, userName, channel)) },
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
