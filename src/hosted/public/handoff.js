// A desktop without a camera hands the session to a phone: a QR code of this session's link
// (drawn by the service, so no library and no third party here), then the desktop follows the
// phone's progress by polling the session until it is submitted.
import { h, show } from './dom.js';
import { t } from './i18n.js';

const POLL_MS = 2000;

const doneOf = (step, progress) =>
  ({
    email: progress.email_confirmed,
    document: progress.document_front && (progress.document_type === 'passport' || progress.document_back),
    selfie: progress.selfie,
    liveness: progress.liveness,
  })[step];

/**
 * Resolves 'back' when the person chooses this computer again, or 'closed' once the session
 * left the open state (submitted on the phone, expired, declined) and `ended` drew that page.
 */
export async function handoffScreen(screen, api, steps, { ended, closed, errorText }) {
  const { qr_svg: svg } = await api.handoff();
  const qrUrl = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  const status = h('p', { role: 'status', class: 'note', text: t('handoffWaiting') });
  const list = h('ul', { class: 'checklist' });
  const draw = (progress) =>
    list.replaceChildren(
      ...steps.map((step) =>
        h(
          'li',
          { class: doneOf(step, progress) ? 'done' : '' },
          `${t(`step.${step}`)}: ${doneOf(step, progress) ? t('handoffDone') : t('handoffTodo')}`,
        ),
      ),
    );
  draw({});
  return new Promise((resolve) => {
    let timer;
    const stop = (outcome) => {
      clearTimeout(timer);
      URL.revokeObjectURL(qrUrl);
      resolve(outcome);
    };
    const back = h('button', { type: 'button', class: 'secondary', onClick: () => stop('back') }, t('useThisDevice'));
    show(
      screen,
      h('h1', { text: t('handoffTitle') }),
      h('p', { text: t('handoffIntro') }),
      h('img', { src: qrUrl, alt: t('qrAlt'), class: 'qr', width: '240', height: '240' }),
      status,
      list,
      h('div', { class: 'actions' }, back),
    );
    screen.dataset.state = 'handoff';
    let last = '';
    const poll = async () => {
      try {
        const view = await api.session();
        if (view.state !== 'open') return stop(ended(view));
        const seen = JSON.stringify(view.progress);
        // Only a change is announced, so the live region does not repeat itself every poll.
        if (seen !== last) {
          last = seen;
          draw(view.progress);
        }
      } catch (failure) {
        if (closed(failure)) return stop('closed');
        status.textContent = errorText(failure);
      }
      timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, POLL_MS);
  });
}
