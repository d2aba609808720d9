// Active liveness (issue 28): the session's challenge, one prompt at a time over the live
// camera, a few JPEG frames per prompt uploaded with their challenge_step. Frames are drawn
// unmirrored (the server reads the yaw's sign off them); only the preview is mirrored.
import { ApiFailure, putToStorage } from './api.js';
import { h, show } from './dom.js';
import { t } from './i18n.js';

const COUNTDOWN_S = 2;
const FRAMES = 3;
const FRAME_GAP_MS = 400;
// A blink shuts the eyes for 1-5 frames at 20 fps (test/engine/liveness/blink-calibration.md),
// which three frames 0.4 s apart mostly miss: the blink prompt takes a burst of 16 frames 80 ms
// apart (1.2 s) instead, and the server judges every frame of it.
const BLINK_FRAMES = 16;
const BLINK_GAP_MS = 80;
const CLOSING = ['SESSION_EXPIRED', 'SESSION_SUBMITTED', 'CONSENT_DECLINED', 'CONSENT_REQUIRED'];

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const stopStream = (stream) => stream?.getTracks().forEach((track) => track.stop());

function grab(video) {
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth || 1280;
  canvas.height = video.videoHeight || 720;
  canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
  return canvas;
}

function encode(canvas) {
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new ApiFailure(0, 'CAPTURE_FAILED'))), 'image/jpeg', 0.9),
  );
}

/** `count` frames `gap` ms apart, drawn on time; each is encoded while the next is awaited. */
async function capture(video, count, gap) {
  const blobs = [];
  const start = performance.now();
  for (let i = 0; i < count; i += 1) {
    if (i) await wait(Math.max(0, start + i * gap - performance.now()));
    blobs.push(encode(grab(video)));
  }
  return Promise.all(blobs);
}

async function sendFrame(api, blob, step) {
  const created = await api.requestUpload({ kind: 'selfie', content_type: 'image/jpeg', challenge_step: step });
  if (created.upload_url) await putToStorage(created.upload_url, blob, 'image/jpeg', () => {});
  await api.completeUpload(created.upload_id);
}

/**
 * The liveness step in `active` mode on `screen`: resolves 'next' once a frame of every prompt
 * is sent (or the sent ones are kept), 'back' to leave the step.
 * options: { done (already sent), back (offer Back), title }
 */
export function livenessChallengeStep(screen, api, options = {}) {
  return new Promise((resolve) => {
    let run = 0;
    const backButton = (stop) =>
      options.back
        ? h(
            'button',
            {
              type: 'button',
              class: 'link',
              onClick: () => {
                stop?.();
                resolve('back');
              },
            },
            t('back'),
          )
        : null;

    function intro(message) {
      const keep = options.done
        ? h('button', { type: 'button', class: 'secondary', onClick: () => resolve('next') }, t('keepSent'))
        : null;
      show(
        screen,
        h('h1', { text: t('challengeTitle') }),
        h('p', { text: t('challengeIntro') }),
        options.done ? h('p', { class: 'note', text: t('alreadySent') }) : null,
        h('p', { class: 'error', role: 'alert', text: message ?? '' }),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', class: 'primary', onClick: () => start() }, t('challengeStart')),
          keep,
          backButton(),
        ),
      );
      screen.dataset.state = 'liveness';
    }

    function refused(error) {
      if (error instanceof ApiFailure && (error.status === 401 || CLOSING.includes(error.code))) {
        screen.dispatchEvent(new CustomEvent('session-closed', { detail: error, bubbles: true }));
        return;
      }
      const key = error instanceof ApiFailure ? `error.${error.code}` : 'error.generic';
      const text = t(key);
      intro(text === key ? t('error.generic') : text);
    }

    async function start() {
      const mine = ++run;
      let stream;
      let challenge;
      try {
        challenge = await api.livenessChallenge();
      } catch (error) {
        return refused(error);
      }
      try {
        stream = await navigator.mediaDevices.getUserMedia({
          video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 720 } },
          audio: false,
        });
      } catch {
        return intro(t('cameraUnavailable'));
      }
      const stop = () => {
        run += 1;
        stopStream(stream);
      };
      const video = h('video', {
        autoplay: true,
        playsinline: true,
        muted: true,
        'aria-label': t('cameraPreview'),
        class: 'camera mirrored',
      });
      video.srcObject = stream;
      const prompt = h('p', { class: 'prompt', 'aria-live': 'assertive' });
      const counter = h('p', { class: 'note' });
      const status = h('p', { role: 'status', class: 'note' });
      const finder = h('div', { class: 'viewfinder' }, video, h('div', { class: 'face-oval', 'aria-hidden': 'true' }));
      show(
        screen,
        h('h1', { text: t('challengeTitle') }),
        counter,
        prompt,
        finder,
        status,
        h('div', { class: 'actions' }, backButton(stop)),
      );
      screen.dataset.state = 'liveness-challenge';
      try {
        await new Promise((ready) =>
          video.readyState >= 2 ? ready() : video.addEventListener('loadeddata', ready, { once: true }),
        );
        for (const [index, move] of challenge.steps.entries()) {
          if (mine !== run) return;
          counter.textContent = t('challengeProgress', { n: index + 1, total: challenge.steps.length });
          prompt.textContent = t(`move.${move}`);
          prompt.dataset.prompt = move;
          finder.dataset.move = move;
          for (let left = COUNTDOWN_S; left > 0; left -= 1) {
            status.textContent = t('challengeCountdown', { n: left });
            await wait(1000);
            if (mine !== run) return;
          }
          const blink = move === 'blink';
          status.textContent = blink ? t('move.blink') : t('challengeHold');
          finder.classList.add('capturing');
          const frames = await capture(video, blink ? BLINK_FRAMES : FRAMES, blink ? BLINK_GAP_MS : FRAME_GAP_MS);
          finder.classList.remove('capturing');
          if (mine !== run) return;
          status.textContent = t('uploading');
          // In order: the server requires each prompt's frames requested after the previous one's.
          for (const blob of frames) await sendFrame(api, blob, index);
        }
      } catch (error) {
        if (mine !== run) return;
        stop();
        return refused(error);
      }
      if (mine !== run) return;
      stop();
      resolve('next');
    }

    intro();
  });
}
