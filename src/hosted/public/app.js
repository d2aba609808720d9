// The hosted applicant page. The client token travels in the URL fragment (#token=...), which
// browsers never send to a server, so it never reaches an access log or a Referer header.
import { ApiFailure, createApi } from './api.js';
import { captureStep } from './capture.js';
import { h, nextId, show } from './dom.js';
import { setLanguage, t } from './i18n.js';

const IMAGE_TYPES = 'image/jpeg,image/png,image/webp,image/heic,image/heif';
const ALL_DOCUMENT_TYPES = ['passport', 'id_card', 'driving_licence', 'residence_permit'];

const screen = document.getElementById('screen');
const sessionId = location.pathname.split('/').filter(Boolean).pop() ?? '';
let brand = '';

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

function helpLink(branding) {
  const footer = document.getElementById('footer');
  footer.replaceChildren();
  if (branding?.support_url) footer.append(h('a', { href: branding.support_url, rel: 'noopener noreferrer', target: '_blank' }, t('help')));
}

function message(state) {
  document.getElementById('progress-nav').hidden = true;
  const [title, body] = {
    invalid: [t('invalidTitle'), t('invalidBody', { brand: brandName() })],
    expired: [t('expiredTitle'), t('expiredBody', { brand: brandName() })],
  }[state];
  show(screen, h('h1', { text: title }), h('p', { text: body }));
  screen.dataset.state = state;
}

function result(view) {
  document.getElementById('progress-nav').hidden = true;
  show(screen, h('h1', { text: t('resultTitle') }), h('p', { text: view.preview ? t('resultPreview') : t('resultBody', { brand: brandName() }) }));
  screen.dataset.state = 'submitted';
}

/** Brand colour as a CSS variable (CSSOM, allowed by the policy), with a text colour that keeps contrast. */
function applyBranding(branding) {
  brand = branding.brand_name ?? '';
  const header = document.getElementById('brand');
  const name = h('span', { class: 'brand-name', text: brand || t('title') });
  header.replaceChildren(...(branding.logo_url ? [h('img', { src: branding.logo_url, alt: brand || t('title'), class: 'logo' })] : []), name);
  if (branding.accent_color) {
    const hex = branding.accent_color.slice(1);
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    document.documentElement.style.setProperty('--accent', branding.accent_color);
    document.documentElement.style.setProperty('--on-accent', luminance > 0.18 ? '#111111' : '#ffffff');
  }
  helpLink(branding);
}

function renderProgress(steps, currentIndex) {
  const list = document.getElementById('progress');
  const all = [...steps, 'submit'];
  list.replaceChildren(
    ...all.map((step, i) =>
      h('li', { class: i < currentIndex ? 'done' : i === currentIndex ? 'current' : '', 'aria-current': i === currentIndex ? 'step' : false },
        h('span', { text: t(`step.${step}`) }),
        i < currentIndex ? h('span', { class: 'visually-hidden', text: ` (${t('done')})` }) : null),
    ),
  );
  list.setAttribute('aria-label', t('stepOf', { n: Math.min(currentIndex + 1, all.length), total: all.length }));
  document.getElementById('progress-nav').hidden = false;
}

function formField(label, attrs) {
  const id = nextId('field');
  return [h('label', { for: id, text: label }), h('input', { id, ...attrs })];
}

/** The email step: the address, then the six-digit code sent to it. */
function emailStep(api, view) {
  return new Promise((resolve) => {
    const askAddress = (initial) => {
      const [label, input] = formField(t('emailLabel'), { type: 'email', name: 'email', autocomplete: 'email', required: true, maxlength: '254' });
      const error = h('p', { class: 'error', role: 'alert', text: initial ?? '' });
      const form = h('form', { novalidate: true }, label, input, error, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, t('sendCode'))));
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
      show(screen, h('h1', { text: t('emailTitle') }), h('p', { text: t('emailIntro') }), form);
    };
    const askCode = (email) => {
      const [label, input] = formField(t('codeLabel'), { type: 'text', name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: '6', required: true });
      const error = h('p', { class: 'error', role: 'alert' });
      const resend = h('button', { type: 'button', class: 'secondary', onClick: async () => {
        try {
          await api.startEmail(email);
          error.textContent = '';
        } catch (failure) {
          if (!closed(failure)) error.textContent = errorText(failure);
        }
      } }, t('resend'));
      const other = h('button', { type: 'button', class: 'link', onClick: () => askAddress() }, t('changeEmail'));
      const form = h('form', { novalidate: true }, label, input, error, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, t('confirm')), resend, other));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        if (!/^\d{6}$/.test(input.value.trim())) return void (error.textContent = t('error.invalidCode'));
        try {
          await api.confirmEmail(input.value.trim());
          resolve();
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

/** A refusal that ends the page (token replaced, session expired or already submitted). */
function closed(failure) {
  if (!(failure instanceof ApiFailure)) return false;
  if (failure.status === 401) message('invalid');
  else if (failure.code === 'SESSION_EXPIRED') message('expired');
  else if (failure.code === 'SESSION_SUBMITTED') result({ preview: false });
  else return false;
  return true;
}

/** The type chooser, limited to the flow's accepted document types. */
function chooseDocumentType(view) {
  const types = view.accepted_document_types.length ? view.accepted_document_types : ALL_DOCUMENT_TYPES;
  if (types.length === 1) return Promise.resolve(types[0]);
  return new Promise((resolve) => {
    const legendId = nextId('legend');
    const options = types.map((type, i) => {
      const id = nextId('doc');
      return h('div', { class: 'choice' }, h('input', { type: 'radio', name: 'document_type', id, value: type, checked: i === 0 }), h('label', { for: id, text: t(`doc.${type}`) }));
    });
    const form = h('form', {}, h('fieldset', { 'aria-labelledby': legendId }, h('legend', { id: legendId, text: t('documentTypeLabel') }), options), h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, t('continue'))));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      resolve(new FormData(form).get('document_type'));
    });
    show(screen, h('h1', { text: t('documentTitle') }), form);
  });
}

async function documentStep(api, view) {
  const type = view.progress.document_front && view.progress.document_type ? view.progress.document_type : await chooseDocumentType(view);
  const doc = t(`doc.${type}`);
  const accept = `${IMAGE_TYPES},application/pdf`;
  if (!view.progress.document_front) {
    await captureStep(screen, api, { title: t('frontTitle', { doc }), intro: t('frontIntro'), kind: 'document', side: 'front', documentType: type, facing: 'environment', accept });
  }
  if (type !== 'passport' && !view.progress.document_back) {
    await captureStep(screen, api, { title: t('backTitle', { doc }), intro: t('frontIntro'), kind: 'document', side: 'back', documentType: type, facing: 'environment', accept });
  }
}

const STEPS = {
  email: (api, view) => emailStep(api, view),
  document: (api, view) => documentStep(api, view),
  selfie: (api) => captureStep(screen, api, { title: t('selfieTitle'), intro: t('selfieIntro'), kind: 'selfie', facing: 'user', accept: IMAGE_TYPES }),
  liveness: (api) => captureStep(screen, api, { title: t('livenessTitle'), intro: t('livenessIntro'), kind: 'video', facing: 'user', accept: 'video/webm,video/mp4,video/quicktime' }),
};

function isDone(step, progress) {
  if (step === 'email') return progress.email_confirmed;
  if (step === 'document') return progress.document_front && (progress.document_type === 'passport' || progress.document_back);
  if (step === 'selfie') return progress.selfie;
  return progress.liveness;
}

function submitScreen(api, view) {
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'button', class: 'primary', onClick: async () => {
    button.disabled = true;
    try {
      result(await api.submit());
    } catch (failure) {
      button.disabled = false;
      if (!closed(failure)) error.textContent = errorText(failure);
    }
  } }, t('submit'));
  show(screen, h('h1', { text: t('reviewTitle') }), h('p', { text: t('reviewIntro') }), error, h('div', { class: 'actions' }, button));
  screen.dataset.state = 'review';
}

/**
 * Walks the steps not yet done, re-reading the session after each, so a reload resumes where
 * it stopped. A preview records nothing, so its finished steps are remembered here only.
 */
async function run(api) {
  const finished = new Set();
  for (;;) {
    const view = await api.session();
    if (view.state === 'expired') return message('expired');
    if (view.state === 'submitted') return result(view);
    const index = view.steps.findIndex((step) => !finished.has(step) && !isDone(step, view.progress));
    renderProgress(view.steps, index === -1 ? view.steps.length : index);
    screen.dataset.state = index === -1 ? 'review' : view.steps[index];
    if (index === -1) return submitScreen(api, view);
    await STEPS[view.steps[index]](api, view);
    if (view.preview) finished.add(view.steps[index]);
  }
}

async function main() {
  setLanguage((navigator.language || 'en').split('-')[0]);
  screen.addEventListener('session-closed', (event) => closed(event.detail));
  const token = takeToken();
  if (!token || !/^vs_[0-9A-Za-z]+$/.test(sessionId)) return message('invalid');
  const api = createApi(sessionId, token);
  try {
    const view = await api.session();
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
    if (!closed(failure)) show(screen, h('h1', { text: t('title') }), h('p', { class: 'error', role: 'alert', text: errorText(failure) }));
  }
}

main();
