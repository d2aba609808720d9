/** The one-time code email of the hosted page's email step, in the page's languages. */
const MESSAGES: Record<string, { subject: string; body: (code: string) => string }> = {
  en: {
    subject: 'Your verification code',
    body: (code) =>
      `Your code is ${code}.\n\nType it on the verification page to confirm this address. It expires in 10 minutes.\nIf you did not ask for it, ignore this email.`,
  },
  de: {
    subject: 'Ihr Bestätigungscode',
    body: (code) =>
      `Ihr Code lautet ${code}.\n\nGeben Sie ihn auf der Verifizierungsseite ein, um diese Adresse zu bestätigen. Er ist 10 Minuten gültig.\nWenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.`,
  },
  fr: {
    subject: 'Votre code de vérification',
    body: (code) =>
      `Votre code est ${code}.\n\nSaisissez-le sur la page de vérification pour confirmer cette adresse. Il expire dans 10 minutes.\nSi vous ne l'avez pas demandé, ignorez cet e-mail.`,
  },
  es: {
    subject: 'Su código de verificación',
    body: (code) =>
      `Su código es ${code}.\n\nIntrodúzcalo en la página de verificación para confirmar esta dirección. Caduca en 10 minutos.\nSi no lo ha solicitado, ignore este correo.`,
  },
};

export function codeMessage(language: string, code: string): { subject: string; text: string } {
  const message = MESSAGES[language] ?? MESSAGES.en!;
  return { subject: message.subject, text: message.body(code) };
}
