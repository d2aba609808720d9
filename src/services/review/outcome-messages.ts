import type { OutcomeEmail } from './applicant-notification.service.js';

interface Texts {
  approve: { subject: string; body: string };
  reject: { subject: string; body: string };
  footer: string;
  /** Heads the reviewer's applicant_message, when there is one. */
  message: string;
}

/**
 * The applicant's outcome email, by language. It names the verification by id and says
 * approved or not: no reason codes, no document data, nothing else of the applicant's.
 * `{id}` is the verification id.
 */
const TEXTS: Record<string, Texts> = {
  en: {
    approve: {
      subject: 'Your identity verification is complete',
      body: 'Hello,\n\nyour identity verification (reference {id}) has been approved.',
    },
    reject: {
      subject: 'Your identity verification could not be completed',
      body: 'Hello,\n\nyour identity verification (reference {id}) could not be approved. The business that asked you to verify can tell you what to do next.',
    },
    footer: 'This message was sent automatically; please do not reply to it.',
    message: 'A note from the team that reviewed your verification:',
  },
  de: {
    approve: {
      subject: 'Ihre Identitätsprüfung ist abgeschlossen',
      body: 'Guten Tag,\n\nIhre Identitätsprüfung (Referenz {id}) wurde erfolgreich abgeschlossen.',
    },
    reject: {
      subject: 'Ihre Identitätsprüfung konnte nicht abgeschlossen werden',
      body: 'Guten Tag,\n\nIhre Identitätsprüfung (Referenz {id}) konnte nicht bestätigt werden. Das Unternehmen, das Sie um die Prüfung gebeten hat, nennt Ihnen die nächsten Schritte.',
    },
    footer: 'Diese Nachricht wurde automatisch versendet; bitte antworten Sie nicht darauf.',
    message: 'Eine Nachricht des Teams, das Ihre Prüfung bearbeitet hat:',
  },
  fr: {
    approve: {
      subject: "Votre vérification d'identité est terminée",
      body: "Bonjour,\n\nvotre vérification d'identité (référence {id}) a été approuvée.",
    },
    reject: {
      subject: "Votre vérification d'identité n'a pas pu aboutir",
      body: "Bonjour,\n\nvotre vérification d'identité (référence {id}) n'a pas pu être approuvée. L'entreprise qui vous a demandé cette vérification peut vous indiquer la marche à suivre.",
    },
    footer: 'Ce message a été envoyé automatiquement ; merci de ne pas y répondre.',
    message: "Un mot de l'équipe qui a examiné votre vérification :",
  },
  es: {
    approve: {
      subject: 'Su verificación de identidad se ha completado',
      body: 'Hola:\n\nsu verificación de identidad (referencia {id}) ha sido aprobada.',
    },
    reject: {
      subject: 'No se ha podido completar su verificación de identidad',
      body: 'Hola:\n\nsu verificación de identidad (referencia {id}) no ha podido ser aprobada. La empresa que le pidió la verificación puede indicarle los próximos pasos.',
    },
    footer: 'Este mensaje se ha enviado automáticamente; por favor, no responda a él.',
    message: 'Una nota del equipo que revisó su verificación:',
  },
};

/** Subject and plain-text body in the verification's language (`de-CH` reads as `de`); English when there is no translation. */
export function outcomeMessage(email: Pick<OutcomeEmail, 'verificationId' | 'decision' | 'locale' | 'message'>): {
  subject: string;
  text: string;
  language: string;
} {
  const primary = email.locale.split('-')[0]!.toLowerCase();
  const language = TEXTS[primary] ? primary : 'en';
  const texts = TEXTS[language]!;
  const { subject, body } = texts[email.decision];
  const note = email.message ? `\n\n${texts.message}\n\n${email.message}` : '';
  return { subject, text: `${body.replace('{id}', email.verificationId)}${note}\n\n${texts.footer}\n`, language };
}
