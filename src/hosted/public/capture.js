// One capture step: camera (getUserMedia) where allowed, a file as fallback, a review of each
// photo with the quality hints, then the two-step upload straight to storage with progress
// and retry. Back leaves the step; a step already sent can be kept.
import { ApiFailure, putToStorage } from './api.js';
import { h, nextId, show } from './dom.js';
import { imageHints } from './hints.js';
import { t } from './i18n.js';

const EXTENSION_TYPES = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
};
const RECORD_MS = 3000;
const PREVIEWABLE = ['image/jpeg', 'image/png', 'image/webp'];

/** Whether getUserMedia can be asked here and a camera is plugged in (labels stay hidden before permission; kinds do not). */
export async function hasCamera() {
  if (!navigator.mediaDevices?.getUserMedia || !window.isSecureContext) return false;
  try {
    const devices = await navigator.mediaDevices.enumerateDevices();
    return devices.some((device) => device.kind === 'videoinput');
  } catch {
    return true;
  }
}

function contentTypeOf(file) {
  if (file.type) return file.type.split(';')[0];
  const ext = file.name.split('.').pop()?.toLowerCase() ?? '';
  return EXTENSION_TYPES[ext] ?? 'application/octet-stream';
}

function stopStream(stream) {
  stream?.getTracks().forEach((track) => track.stop());
}

/**
 * Runs one capture step on `screen`; resolves 'next' once its upload is complete (or the one
 * already sent is kept), 'back' to leave it, or whatever the phone hand-off ended with.
 * step: { title, intro, kind ('document' | 'selfie' | 'video'), side, documentType, facing, accept }
 * options: { camera (boolean), done (already sent), back (offer Back), handoff (() => Promise) }
 */
export function captureStep(screen, api, step, options = {}) {
  return new Promise((resolve) => {
    const errorBox = () => h('p', { class: 'error', role: 'alert', id: nextId('error') });
    const actions = (...buttons) => h('div', { class: 'actions' }, buttons);
    const backButton = () =>
      options.back ? h('button', { type: 'button', class: 'link', onClick: () => resolve('back') }, t('back')) : null;

    function choose(message) {
      const error = errorBox();
      if (message) error.textContent = message;
      const inputId = nextId('file');
      const input = h('input', { type: 'file', id: inputId, class: 'visually-hidden', accept: step.accept });
      input.addEventListener('change', () => {
        const file = input.files?.[0];
        if (!file) return;
        const type = contentTypeOf(file);
        if (step.kind === 'video') upload(file, type);
        else review(file, type, 'file');
      });
      const camera = options.camera
        ? h(
            'button',
            { type: 'button', class: 'primary', onClick: () => openCamera() },
            step.kind === 'video' ? t('recordVideo') : t('takePhoto'),
          )
        : h('p', { class: 'note' }, t('cameraUnavailable'));
      const phoneFirst = !options.camera && options.handoff;
      const fileLabel = h(
        'label',
        {
          for: inputId,
          class: options.camera || phoneFirst ? 'button secondary' : 'button primary',
          'data-file-label': '',
        },
        options.camera ? t('chooseFile') : t('chooseFileOnly'),
      );
      const handoff = options.handoff
        ? h(
            'button',
            { type: 'button', class: phoneFirst ? 'primary' : 'link', onClick: () => toPhone() },
            t('handoffOffer'),
          )
        : null;
      const keep = options.done
        ? h('button', { type: 'button', class: 'secondary', onClick: () => resolve('next') }, t('keepSent'))
        : null;
      show(
        screen,
        h('h1', { text: step.title }),
        h('p', { text: step.intro }),
        options.done ? h('p', { class: 'note', text: t('alreadySent') }) : null,
        phoneFirst ? h('p', { text: t('handoffNoCamera') }) : null,
        error,
        phoneFirst
          ? actions(handoff, input, fileLabel, keep, backButton())
          : actions(camera, input, fileLabel, keep, handoff, backButton()),
      );
    }

    async function toPhone() {
      try {
        const outcome = await options.handoff();
        if (outcome === 'back') choose();
        else resolve(outcome);
      } catch (error) {
        refused(error);
      }
    }

    async function openCamera() {
      let stream;
      try {
        const facingMode = step.facing ?? 'user';
        stream = await navigator.mediaDevices.getUserMedia({
          video: { facingMode, width: { ideal: 1920 }, height: { ideal: 1080 } },
          audio: false,
        });
      } catch {
        choose(t('cameraUnavailable'));
        return;
      }
      const video = h('video', {
        autoplay: true,
        playsinline: true,
        muted: true,
        'aria-label': t('cameraPreview'),
        class: 'camera',
      });
      video.srcObject = stream;
      // The document's outline: where to put the card or the passport page (decoration; the hint says it in words).
      const outline =
        step.kind === 'document'
          ? h('div', {
              class: `outline ${step.documentType === 'passport' ? 'passport' : 'card'}`,
              'aria-hidden': 'true',
            })
          : null;
      const finder = h('div', { class: 'viewfinder' }, video, outline);
      const cancel = h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onClick: () => {
            stopStream(stream);
            choose();
          },
        },
        t('cancel'),
      );
      const status = h('p', { role: 'status', class: 'note', text: step.kind === 'document' ? t('frameHint') : '' });
      const shoot =
        step.kind === 'video'
          ? h(
              'button',
              { type: 'button', class: 'primary', onClick: () => record(stream, shoot, status, finder) },
              t('startRecording'),
            )
          : h('button', { type: 'button', class: 'primary', onClick: () => snap(stream, video) }, t('capturePhoto'));
      show(screen, h('h1', { text: step.title }), h('p', { text: step.intro }), finder, status, actions(shoot, cancel));
    }

    function snap(stream, video) {
      const canvas = document.createElement('canvas');
      canvas.width = video.videoWidth || 1280;
      canvas.height = video.videoHeight || 720;
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      stopStream(stream);
      canvas.toBlob(
        (blob) => (blob ? review(blob, 'image/jpeg', 'camera') : choose(t('error.generic'))),
        'image/jpeg',
        0.92,
      );
    }

    function record(stream, button, status, finder) {
      if (typeof MediaRecorder === 'undefined') {
        stopStream(stream);
        choose(t('cameraUnavailable'));
        return;
      }
      button.disabled = true;
      finder.classList.add('recording');
      let left = RECORD_MS / 1000;
      status.textContent = t('countdown', { n: left });
      const countdown = setInterval(() => {
        left -= 1;
        if (left > 0) status.textContent = t('countdown', { n: left });
      }, 1000);
      const recorder = new MediaRecorder(
        stream,
        MediaRecorder.isTypeSupported('video/webm') ? { mimeType: 'video/webm' } : undefined,
      );
      const chunks = [];
      recorder.ondataavailable = (event) => event.data.size && chunks.push(event.data);
      recorder.onstop = () => {
        clearInterval(countdown);
        stopStream(stream);
        const type = (recorder.mimeType || 'video/webm').split(';')[0];
        upload(new Blob(chunks, { type }), type);
      };
      recorder.start(500);
      setTimeout(() => recorder.state !== 'inactive' && recorder.stop(), RECORD_MS);
    }

    /** After every photo or chosen file: look at it, with the hints the page computed, then use it or retake it. */
    async function review(blob, contentType, origin) {
      const hints = await imageHints(blob);
      const url = PREVIEWABLE.includes(contentType) ? URL.createObjectURL(blob) : null;
      const done = (next) => () => {
        if (url) URL.revokeObjectURL(url);
        next();
      };
      const question = step.kind === 'document' ? t('reviewDocQuestion') : t('reviewFaceQuestion');
      show(
        screen,
        h('h1', { text: t('reviewPhotoTitle') }),
        url
          ? h('img', { src: url, alt: t('yourImage'), class: 'preview' })
          : h('p', { text: t('reviewFile', { name: blob.name ?? contentType }) }),
        hints.length
          ? h(
              'div',
              { class: 'hints', role: 'alert' },
              h('p', { text: t('hintsTitle') }),
              h(
                'ul',
                {},
                hints.map((key) => h('li', { 'data-hint': key.slice(5), text: t(key) })),
              ),
            )
          : null,
        h('p', { class: 'strong', text: question }),
        actions(
          h(
            'button',
            { type: 'button', class: 'primary', onClick: done(() => upload(blob, contentType)) },
            t('usePhoto'),
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onClick: done(() => (origin === 'camera' ? openCamera() : choose())),
            },
            t('retake'),
          ),
        ),
      );
      screen.dataset.state = 'review-capture';
    }

    async function upload(blob, contentType) {
      const progress = h('progress', { max: '1', value: '0', 'aria-label': t('uploadProgress') });
      const status = h('p', { role: 'status', text: t('uploading') });
      show(screen, h('h1', { text: step.title }), status, progress);
      let created;
      try {
        created = await api.requestUpload({
          kind: step.kind,
          content_type: contentType,
          ...(step.side ? { side: step.side } : {}),
          ...(step.documentType ? { document_type: step.documentType } : {}),
        });
      } catch (error) {
        return refused(error);
      }
      await put(created, blob, contentType, progress, status);
    }

    async function put(created, blob, contentType, progress, status) {
      try {
        if (created.upload_url)
          await putToStorage(created.upload_url, blob, contentType, (fraction) => (progress.value = fraction));
        progress.value = 1;
        await api.completeUpload(created.upload_id);
      } catch (error) {
        if (
          error instanceof ApiFailure &&
          error.code !== 'UPLOAD_FAILED' &&
          error.code !== 'NETWORK' &&
          error.status < 500
        )
          return refused(error);
        const retry = h(
          'button',
          {
            type: 'button',
            class: 'primary',
            onClick: () => {
              status.textContent = t('uploading');
              retry.remove();
              put(created, blob, contentType, progress, status);
            },
          },
          t('retry'),
        );
        status.textContent = t('uploadFailed');
        status.setAttribute('role', 'alert');
        screen.append(actions(retry));
        retry.focus();
        return;
      }
      status.textContent = t('uploaded');
      resolve('next');
    }

    function refused(error) {
      if (
        error instanceof ApiFailure &&
        (error.status === 401 ||
          ['SESSION_EXPIRED', 'SESSION_SUBMITTED', 'CONSENT_DECLINED', 'CONSENT_REQUIRED'].includes(error.code))
      ) {
        screen.dispatchEvent(new CustomEvent('session-closed', { detail: error, bubbles: true }));
        return;
      }
      const key = error instanceof ApiFailure ? `error.${error.code}` : 'error.generic';
      const message = t(key);
      choose(message === key ? t('error.generic') : message);
    }

    choose();
  });
}
