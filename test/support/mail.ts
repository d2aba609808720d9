import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it: the raw message, and its headers and decoded body. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  headers: string;
  /** The body, quoted-printable decoded when the message says it is. */
  text: string;
}

/** Decodes a quoted-printable body (soft line breaks, =XX bytes) as UTF-8. */
const decodeQuotedPrintable = (body: string) =>
  Buffer.from(
    body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

export interface MailServerOptions {
  /** Recipients the server refuses with 550 (a mailbox that does not exist). */
  refuse?: (address: string) => boolean;
}

export interface MailServer {
  url: string;
  received: ReceivedMail[];
  /** The first six-digit code in a message to `to` received after `since` messages (waits for it). */
  codeFor(to: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it accepts. */
export async function startMailServer(options: MailServerOptions = {}): Promise<MailServer> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.refuse?.(address.address))
        return callback(Object.assign(new Error(`Mailbox ${address.address} unavailable`), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.indexOf('\r\n\r\n');
        const headers = raw.slice(0, split);
        const body = raw.slice(split + 4);
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          headers,
          text: /content-transfer-encoding: quoted-printable/i.test(headers) ? decodeQuotedPrintable(body) : body,
        });
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
      const code =
        mail &&
        /\b(\d{6})\b/.exec(
          mail.raw
            .split(/\r?\n\r?\n/)
            .slice(1)
            .join('\n'),
        )?.[1];
      if (code) return code;
      if (Date.now() > deadline) throw new Error(`no code mailed to ${to}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    codeFor,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
