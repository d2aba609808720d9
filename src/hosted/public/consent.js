// The consent step, first of all: what is collected, why, for how long, who is responsible,
// and an explicit choice (two buttons, no pre-ticked box). Declining ends the applicant's part.
import { h, show } from './dom.js';
import { t } from './i18n.js';

/** "3 years" when the retention is whole years, else days. */
function period(days) {
  if (days % 365 === 0) return days === 365 ? t('retentionYear') : t('retentionYears', { n: days / 365 });
  return t('retentionDays', { n: days });
}

function collected(steps) {
  const items = [];
  if (steps.includes('email')) items.push('email');
  if (steps.includes('document')) items.push('document');
  if (steps.includes('selfie') || steps.includes('liveness')) items.push('face', 'template');
  return items;
}

const section = (title, ...body) => h('section', { class: 'consent-part' }, h('h2', { text: title }), ...body);

/**
 * Resolves 'agree' or 'decline' once the service recorded the choice; a refusal that ends
 * the page is passed to `closed`.
 */
export function consentScreen(screen, api, view, { brand, closed, errorText }) {
  return new Promise((resolve) => {
    const error = h('p', { class: 'error', role: 'alert' });
    const choose = (decision) => async () => {
      buttons.forEach((b) => (b.disabled = true));
      try {
        await api.consent(decision, view.consent.version);
        resolve(decision);
      } catch (failure) {
        buttons.forEach((b) => (b.disabled = false));
        if (!closed(failure)) error.textContent = errorText(failure);
      }
    };
    const buttons = [
      h('button', { type: 'button', class: 'primary', onClick: choose('agree') }, t('agree')),
      h('button', { type: 'button', class: 'secondary', onClick: choose('decline') }, t('disagree')),
    ];
    const privacy = view.branding.privacy_url
      ? h(
          'p',
          {},
          h(
            'a',
            { href: view.branding.privacy_url, rel: 'noopener noreferrer', target: '_blank' },
            t('privacyLink', { brand }),
          ),
        )
      : null;
    show(
      screen,
      h('h1', { text: t('consentTitle') }),
      h('p', { text: t('consentIntro', { brand }) }),
      section(
        t('consentCollectedTitle'),
        h(
          'ul',
          {},
          collected(view.steps).map((item) => h('li', { text: t(`consentItem.${item}`) })),
        ),
      ),
      section(
        t('consentPurposeTitle'),
        h('p', { text: t('consentPurpose', { brand }) }),
        h('p', { class: 'strong', text: t('consentBiometric') }),
      ),
      section(
        t('consentRetentionTitle'),
        h('p', { text: t('consentRetention', { period: period(view.consent.retention_days) }) }),
      ),
      section(t('consentControllerTitle'), h('p', { text: t('consentController', { brand }) }), privacy),
      h('p', { class: 'strong', text: t('consentAsk') }),
      error,
      h('div', { class: 'actions' }, buttons),
    );
  });
}

/** After "I do not agree": what happens next, and the merchant's support link. */
export function declinedScreen(screen, view, brand) {
  const support = view.branding.support_url
    ? h(
        'p',
        {},
        h(
          'a',
          { href: view.branding.support_url, rel: 'noopener noreferrer', target: '_blank', class: 'button secondary' },
          t('contactSupport', { brand }),
        ),
      )
    : null;
  // Declined after going back to this step (consent withdrawn): something was already sent, so say so.
  const p = view.progress ?? {};
  const withdrawn = p.email_confirmed || p.document_front || p.document_back || p.selfie || p.liveness;
  show(
    screen,
    h('h1', { text: t('declinedTitle') }),
    h('p', { text: t(withdrawn ? 'withdrawnBody' : 'declinedBody', { brand }) }),
    h('p', { text: t('declinedNext', { brand }) }),
    support,
  );
  screen.dataset.state = 'declined';
}
