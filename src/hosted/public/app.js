// The hosted applicant page. The client token travels in the URL fragment (#token=...), which
// browsers never send to a server, so it never reaches an access log or a Referer header.
import { ApiFailure, createApi } from './api.js';
import { captureStep, hasCamera } from './capture.js';
import { consentScreen, declinedScreen } from './consent.js';
import { h, nextId, show } from './dom.js';
import { finishScreen } from './finish.js';
import { handoffScreen } from './handoff.js';
import { setLanguage, t } from './i18n.js';
import { livenessChallengeStep } from './liveness-challenge.js';

const IMAGE_TYPES = 'image/jpeg,image/png,image/webp,image/heic,image/heif';
const ALL_DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'];

const screen = document.getElementById('screen');
const sessionId = location.pathname.split('/').filter(Boolean).pop() ?? '';
let brand = '';
let lastView = null;

/** Takes the token from the fragment once, keeps it for this tab only, and removes it from the address bar. */
function takeToken() {
  const key = `idv-token:${sessionId}`;
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    sessionStorage.setItem(key, fromHash);
    history.replaceState(null, '', location.pathname + location.search);
    return fromHash;
  }
  return sessionStorage.getItem(key);
}

const brandName = () => brand || t('ourPartner');
const hideProgress = () => (document.getElementById('progress-nav').hidden = true);

function helpLink(branding) {
  const footer = document.getElementById('footer');
  footer.replaceChildren();
  if (branding?.support_url)
    footer.append(h('a', { href: branding.support_url, rel: 'noopener noreferrer', target: '_blank' }, t('help')));
}

function message(state) {
  hideProgress();
  const [title, body] = {
    invalid: [t('invalidTitle'), t('invalidBody', { brand: brandName() })],
    expired: [t('expiredTitle'), t('expiredBody', { brand: brandName() })],
  }[state];
  show(screen, h('h1', { text: title }), h('p', { text: body }));
  screen.dataset.state = state;
}

/** The end of the applicant's part for a view that is no longer open; answers 'closed'. */
function ended(view) {
  hideProgress();
  if (view.state === 'expired') message('expired');
  else if (view.state === 'declined') declinedScreen(screen, view, brandName());
  else finishScreen(screen, view, { brand, brandName: brandName() });
  return 'closed';
}

/** Brand colour as a CSS variable (CSSOM, allowed by the policy), with a text colour that keeps contrast. */
function applyBranding(branding) {
  brand = branding.brand_name ?? '';
  const header = document.getElementById('brand');
  const name = h('span', { class: 'brand-name', text: brand || t('title') });
  header.replaceChildren(
    ...(branding.logo_url ? [h('img', { src: branding.logo_url, alt: brand || t('title'), class: 'logo' })] : []),
    name,
  );
  if (branding.accent_color) {
    const hex = branding.accent_color.slice(1);
    const [r, g, b] = [0, 2, 4]
      .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    document.documentElement.style.setProperty('--accent', branding.accent_color);
    document.documentElement.style.setProperty('--on-accent', luminance > 0.18 ? '#111111' : '#ffffff');
  }
  helpLink(branding);
}

/** The steps as the applicant sees them: consent, the session's steps, submit. */
function renderProgress(steps, current) {
  const list = document.getElementById('progress');
  const all = ['consent', ...steps, 'submit'];
  const currentIndex = all.indexOf(current);
  list.replaceChildren(
    ...all.map((step, i) =>
      h(
        'li',
        {
          class: i < currentIndex ? 'done' : i === currentIndex ? 'current' : '',
          'aria-current': i === currentIndex ? 'step' : false,
        },
        h('span', { text: t(`step.${step}`) }),
        i < currentIndex ? h('span', { class: 'visually-hidden', text: ` (${t('done')})` }) : null,
      ),
    ),
  );
  list.setAttribute('aria-label', t('stepOf', { n: currentIndex + 1, total: all.length }));
  document.getElementById('progress-nav').hidden = false;
}

function formField(label, attrs) {
  const id = nextId('field');
  return [h('label', { for: id, text: label }), h('input', { id, ...attrs })];
}

const backButton = (onClick) => h('button', { type: 'button', class: 'link', onClick }, t('back'));

/** The email step: the address, then the six-digit code sent to it. Resolves 'next' or 'back'. */
function emailStep(api, { view, done }) {
  return new Promise((resolve) => {
    const askAddress = (initial) => {
      const [label, input] = formField(t('emailLabel'), {
        type: 'email',
        name: 'email',
        autocomplete: 'email',
        required: true,
        maxlength: '254',
      });
      const error = h('p', { class: 'error', role: 'alert', text: initial ?? '' });
      const keep = done
        ? h('button', { type: 'button', class: 'secondary', onClick: () => resolve('next') }, t('continue'))
        : null;
      const form = h(
        'form',
        { novalidate: true },
        label,
        input,
        error,
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', class: 'primary' }, t('sendCode')),
          keep,
          backButton(() => resolve('back')),
        ),
      );
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const email = input.value.trim();
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return void (error.textContent = t('error.invalidEmail'));
        try {
          await api.startEmail(email);
          askCode(email);
        } catch (failure) {
          if (!closed(failure)) error.textContent = errorText(failure);
        }
      });
      show(screen, h('h1', { text: t('emailTitle') }), h('p', { text: done ? t('emailDone') : t('emailIntro') }), form);
    };
    const askCode = (email) => {
      const [label, input] = formField(t('codeLabel'), {
        type: 'text',
        name: 'code',
        inputmode: 'numeric',
        autocomplete: 'one-time-code',
        pattern: '[0-9]{6}',
        maxlength: '6',
        required: true,
      });
      const error = h('p', { class: 'error', role: 'alert' });
      const resend = h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onClick: async () => {
            try {
              await api.startEmail(email);
              error.textContent = '';
            } catch (failure) {
              if (!closed(failure)) error.textContent = errorText(failure);
            }
          },
        },
        t('resend'),
      );
      const other = h('button', { type: 'button', class: 'link', onClick: () => askAddress() }, t('changeEmail'));
      const form = h(
        'form',
        { novalidate: true },
        label,
        input,
        error,
        h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, t('confirm')), resend, other),
      );
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        if (!/^\d{6}$/.test(input.value.trim())) return void (error.textContent = t('error.invalidCode'));
        try {
          await api.confirmEmail(input.value.trim());
          resolve('next');
        } catch (failure) {
          if (!closed(failure)) error.textContent = errorText(failure);
        }
      });
      const intro = view.preview ? t('codePreview') : t('codeIntro', { email });
      show(screen, h('h1', { text: t('codeTitle') }), h('p', { text: intro }), form);
    };
    askAddress();
  });
}

function errorText(failure) {
  const key = failure instanceof ApiFailure ? `error.${failure.code}` : 'error.generic';
  const text = t(key);
  return text === key ? t('error.generic') : text;
}

/** A refusal that ends the page (token replaced, session expired, submitted or declined). */
function closed(failure) {
  if (!(failure instanceof ApiFailure)) return false;
  const view = lastView ?? { branding: {}, return_url: null, preview: false };
  if (failure.status === 401) message('invalid');
  else if (failure.code === 'SESSION_EXPIRED') message('expired');
  else if (failure.code === 'SESSION_SUBMITTED') ended({ ...view, state: 'submitted' });
  else if (failure.code === 'CONSENT_DECLINED') ended({ ...view, state: 'declined' });
  else if (failure.code === 'CONSENT_REQUIRED') location.reload();
  else return false;
  return true;
}

const documentTypes = (view) =>
  view.accepted_document_types.length ? view.accepted_document_types : ALL_DOCUMENT_TYPES;

/** The type chooser, limited to the flow's accepted document types. Resolves 'next' or 'back'. */
function chooseDocumentType(local, { view, back }) {
  const types = documentTypes(view);
  return new Promise((resolve) => {
    const legendId = nextId('legend');
    const options = types.map((type, i) => {
      const id = nextId('doc');
      return h(
        'div',
        { class: 'choice' },
        h('input', {
          type: 'radio',
          name: 'document_type',
          id,
          value: type,
          checked: local.docType ? type === local.docType : i === 0,
        }),
        h('label', { for: id, text: t(`doc.${type}`) }),
      );
    });
    const form = h(
      'form',
      {},
      h(
        'fieldset',
        { 'aria-labelledby': legendId },
        h('legend', { id: legendId, text: t('documentTypeLabel') }),
        options,
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, t('continue')),
        back ? backButton(() => resolve('back')) : null,
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      local.docType = new FormData(form).get('document_type');
      resolve('next');
    });
    show(screen, h('h1', { text: t('documentTitle') }), form);
  });
}

function submitScreen(api) {
  return new Promise((resolve) => {
    const error = h('p', { class: 'error', role: 'alert' });
    const button = h(
      'button',
      {
        type: 'button',
        class: 'primary',
        onClick: async () => {
          button.disabled = true;
          try {
            resolve(ended(await api.submit()));
          } catch (failure) {
            button.disabled = false;
            if (!closed(failure)) error.textContent = errorText(failure);
          }
        },
      },
      t('submit'),
    );
    show(
      screen,
      h('h1', { text: t('reviewTitle') }),
      h('p', { text: t('reviewIntro') }),
      error,
      h(
        'div',
        { class: 'actions' },
        button,
        backButton(() => resolve('back')),
      ),
    );
    screen.dataset.state = 'review';
  });
}

/** The screens of a session in order; a document's back only when the type has one. */
function screensOf(view, local) {
  const list = ['consent'];
  for (const step of view.steps) {
    if (step !== 'document') list.push(step);
    else {
      if (documentTypes(view).length > 1) list.push('document-type');
      list.push('document-front');
      if (local.docType !== 'passport') list.push('document-back');
    }
  }
  list.push('submit');
  return list;
}

const stepOf = (name) => (name.startsWith('document') ? 'document' : name);

function isDone(name, view, local) {
  if (local.finished.has(name)) return true;
  const p = view.progress;
  switch (name) {
    case 'consent':
      return view.consent.state === 'given';
    case 'email':
      return p.email_confirmed;
    case 'document-type':
      return Boolean(local.docType);
    case 'document-front':
      return p.document_front && p.document_type === local.docType;
    case 'document-back':
      return p.document_back && p.document_type === local.docType;
    case 'selfie':
      return p.selfie;
    case 'liveness':
      return p.liveness;
    default:
      return false;
  }
}

const firstOpen = (screens, view, local, from) => {
  const index = screens.findIndex((name, i) => i >= from && !isDone(name, view, local));
  return index === -1 ? screens.length - 1 : index;
};

function screenRunners(api, local, device) {
  const capture = (step) => (ctx) =>
    captureStep(screen, api, step, {
      camera: device.camera,
      done: ctx.done,
      back: true,
      // A computer offers the phone; a phone does not offer itself.
      handoff:
        device.phone || ctx.view.preview
          ? null
          : () => handoffScreen(screen, api, ctx.view.steps, { ended, closed, errorText }),
    });
  const docStep = (side) => (ctx) => {
    const type = local.docType;
    const doc = t(`docTitle.${type}`);
    return capture({
      title: t(side === 'front' ? 'frontTitle' : 'backTitle', { doc }),
      intro: t('frontIntro'),
      kind: 'document',
      side,
      documentType: type,
      facing: 'environment',
      accept: `${IMAGE_TYPES},application/pdf`,
    })(ctx);
  };
  return {
    consent: async (ctx) =>
      (await consentScreen(screen, api, ctx.view, { brand: brandName(), closed, errorText })) === 'agree'
        ? 'next'
        : ended({ ...ctx.view, state: 'declined' }),
    email: (ctx) => emailStep(api, ctx),
    'document-type': (ctx) => chooseDocumentType(local, ctx),
    'document-front': docStep('front'),
    'document-back': docStep('back'),
    selfie: capture({
      title: t('selfieTitle'),
      intro: t('selfieIntro'),
      kind: 'selfie',
      facing: 'user',
      accept: IMAGE_TYPES,
    }),
    // Active (the default in a hosted session): the challenge's prompts, which need the camera.
    liveness: (ctx) =>
      ctx.view.liveness_mode === 'active' && device.camera
        ? livenessChallengeStep(screen, api, { done: ctx.done, back: true })
        : capture({
            title: t('livenessTitle'),
            intro: t('livenessIntro'),
            kind: 'video',
            facing: 'user',
            accept: 'video/webm,video/mp4,video/quicktime',
          })(ctx),
    submit: () => submitScreen(api),
  };
}

/**
 * Walks the screens from the first unfinished one, re-reading the session after each, so a
 * reload resumes where it stopped. Back goes to the previous screen, where what was already
 * sent can be kept or replaced. A preview records nothing, so its finished screens are
 * remembered here only.
 */
async function run(api) {
  const device = { camera: await hasCamera(), phone: matchMedia('(pointer: coarse)').matches };
  const local = { finished: new Set(), docType: null };
  const runners = screenRunners(api, local, device);
  let cursor = null;
  let advanceFrom = null;
  for (;;) {
    const view = (lastView = await api.session());
    if (view.state !== 'open') return ended(view);
    if (local.docType === null && view.progress.document_front) local.docType = view.progress.document_type;
    if (local.docType === null && documentTypes(view).length === 1) local.docType = documentTypes(view)[0];
    const screens = screensOf(view, local);
    if (cursor === null) cursor = firstOpen(screens, view, local, 0);
    else if (advanceFrom !== null) cursor = firstOpen(screens, view, local, advanceFrom + 1);
    cursor = Math.min(cursor, screens.length - 1);
    const name = screens[cursor];
    renderProgress(view.steps, stepOf(name));
    screen.dataset.state = name;
    const outcome = await runners[name]({ view, done: isDone(name, view, local), back: cursor > 0 });
    if (outcome === 'closed') return;
    if (outcome === 'back') {
      advanceFrom = null;
      cursor = Math.max(0, cursor - 1);
    } else {
      if (view.preview) local.finished.add(name);
      advanceFrom = cursor;
    }
  }
}

async function main() {
  setLanguage((navigator.language || 'en').split('-')[0]);
  screen.addEventListener('session-closed', (event) => closed(event.detail));
  const token = takeToken();
  if (!token || !/^vs_[0-9A-Za-z]+$/.test(sessionId)) return message('invalid');
  const api = createApi(sessionId, token);
  try {
    const view = (lastView = await api.session());
    setLanguage(view.language);
    document.title = t('title');
    applyBranding(view.branding);
    if (view.preview) {
      const banner = document.getElementById('preview-banner');
      banner.textContent = t('previewBanner');
      banner.hidden = false;
    }
    await run(api);
  } catch (failure) {
    if (!closed(failure))
      show(screen, h('h1', { text: t('title') }), h('p', { class: 'error', role: 'alert', text: errorText(failure) }));
  }
}

main();
