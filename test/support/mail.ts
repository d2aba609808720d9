import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it (headers and body as sent). */
export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface MailServer {
  url: string;
  received: ReceivedMail[];
  /** The first six-digit code in a message to `to` received after `since` messages (waits for it). */
  codeFor(to: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts. */
export async function startMailServer(): Promise<MailServer> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  const codeFor = async (to: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = [...received].reverse().find((m) => m.to.includes(to));
      const code = mail && /\b(\d{6})\b/.exec(mail.raw.split(/\r?\n\r?\n/).slice(1).join('\n'))?.[1];
      if (code) return code;
      if (Date.now() > deadline) throw new Error(`no code mailed to ${to}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { url: `smtp://127.0.0.1:${port}`, received, codeFor, close: () => new Promise<void>((resolve) => smtp.close(() => resolve())) };
}
