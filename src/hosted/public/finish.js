// The end screen: what happens next (never the verdict), and the way back to the merchant
// when the key set a return_url. Only that URL, read from the service, is ever followed.
import { h, show } from './dom.js';
import { t } from './i18n.js';

const REDIRECT_SECONDS = 8;

/** The return_url as the service answered it, if it is an http(s) URL; nothing else is followed. */
const returnUrlOf = (view) =>
  typeof view.return_url === 'string' && /^https?:\/\//i.test(view.return_url) ? view.return_url : null;

export function finishScreen(screen, view, { brand, brandName }) {
  const parts = [
    h('h1', { text: t('resultTitle') }),
    h('p', { text: view.preview ? t('resultPreview') : t('resultBody', { brand: brandName }) }),
  ];
  const url = returnUrlOf(view);
  let timer;
  if (url) {
    const label = brand ? t('resultBack', { brand }) : t('resultBackGeneric');
    const status = h('p', { role: 'status', class: 'note' });
    const stay = h(
      'button',
      {
        type: 'button',
        class: 'link',
        onClick: () => {
          clearInterval(timer);
          status.textContent = '';
          stay.remove();
        },
      },
      t('stayHere'),
    );
    let left = REDIRECT_SECONDS;
    status.textContent = t('redirecting', { n: left });
    // A few seconds to read the page (and to stay, for anyone who needs longer), then back to the merchant.
    timer = setInterval(() => {
      left -= 1;
      if (left > 0) status.textContent = t('redirecting', { n: left });
      else {
        clearInterval(timer);
        location.assign(url);
      }
    }, 1000);
    parts.push(
      h('div', { class: 'actions' }, h('a', { href: url, class: 'button primary', rel: 'noreferrer' }, label), stay),
      status,
    );
  }
  show(screen, ...parts);
  screen.dataset.state = 'submitted';
}
