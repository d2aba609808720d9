// One capture step: camera (getUserMedia) where allowed, a file as fallback, hints, then the
// two-step upload straight to storage with progress and retry.
import { ApiFailure, putToStorage } from './api.js';
import { h, nextId, show } from './dom.js';
import { imageHints } from './hints.js';
import { t } from './i18n.js';

const EXTENSION_TYPES = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', heic: 'image/heic', heif: 'image/heif', pdf: 'application/pdf', mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime' };
const RECORD_MS = 3000;

const cameraAvailable = () => Boolean(navigator.mediaDevices?.getUserMedia) && window.isSecureContext;

function contentTypeOf(file) {
  if (file.type) return file.type.split(';')[0];
  const ext = file.name.split('.').pop()?.toLowerCase() ?? '';
  return EXTENSION_TYPES[ext] ?? 'application/octet-stream';
}

function stopStream(stream) {
  stream?.getTracks().forEach((track) => track.stop());
}

/**
 * Runs one capture step on `screen` and resolves once its upload is complete.
 * step: { title, intro, kind ('document' | 'selfie' | 'video'), side, documentType, facing, accept }
 */
export function captureStep(screen, api, step) {
  return new Promise((resolve) => {
    const errorBox = () => h('p', { class: 'error', role: 'alert', id: nextId('error') });

    function choose(message) {
      const error = errorBox();
      if (message) error.textContent = message;
      const inputId = nextId('file');
      const input = h('input', { type: 'file', id: inputId, class: 'visually-hidden', accept: step.accept });
      input.addEventListener('change', () => {
        const file = input.files?.[0];
        if (file) review(file, contentTypeOf(file));
      });
      const camera = cameraAvailable()
        ? h('button', { type: 'button', class: 'primary', onClick: () => openCamera() }, step.kind === 'video' ? t('record') : t('takePhoto'))
        : h('p', { class: 'note' }, t('cameraUnavailable'));
      const fileLabel = h('label', { for: inputId, class: cameraAvailable() ? 'button secondary' : 'button primary', 'data-file-label': '' }, cameraAvailable() ? t('chooseFile') : t('chooseFileOnly'));
      show(screen, h('h1', { text: step.title }), h('p', { text: step.intro }), error, h('div', { class: 'actions' }, camera, input, fileLabel));
    }

    async function openCamera() {
      let stream;
      try {
        const facingMode = step.facing ?? 'user';
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode, width: { ideal: 1920 }, height: { ideal: 1080 } }, audio: false });
      } catch {
        choose(t('cameraUnavailable'));
        return;
      }
      const video = h('video', { autoplay: true, playsinline: true, muted: true, 'aria-label': t('cameraPreview'), class: 'camera' });
      video.srcObject = stream;
      const cancel = h('button', { type: 'button', class: 'secondary', onClick: () => { stopStream(stream); choose(); } }, t('cancel'));
      const status = h('p', { role: 'status', class: 'note' });
      const shoot = step.kind === 'video'
        ? h('button', { type: 'button', class: 'primary', onClick: () => record(stream, shoot, status) }, t('record'))
        : h('button', { type: 'button', class: 'primary', onClick: () => snap(stream, video) }, t('capture'));
      show(screen, h('h1', { text: step.title }), h('p', { text: step.intro }), video, status, h('div', { class: 'actions' }, shoot, cancel));
    }

    function snap(stream, video) {
      const canvas = document.createElement('canvas');
      canvas.width = video.videoWidth || 1280;
      canvas.height = video.videoHeight || 720;
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      stopStream(stream);
      canvas.toBlob((blob) => (blob ? review(blob, 'image/jpeg') : choose(t('error.generic'))), 'image/jpeg', 0.92);
    }

    function record(stream, button, status) {
      if (typeof MediaRecorder === 'undefined') {
        stopStream(stream);
        choose(t('cameraUnavailable'));
        return;
      }
      button.disabled = true;
      status.textContent = t('recording');
      const recorder = new MediaRecorder(stream, MediaRecorder.isTypeSupported('video/webm') ? { mimeType: 'video/webm' } : undefined);
      const chunks = [];
      recorder.ondataavailable = (event) => event.data.size && chunks.push(event.data);
      recorder.onstop = () => {
        stopStream(stream);
        const type = (recorder.mimeType || 'video/webm').split(';')[0];
        upload(new Blob(chunks, { type }), type);
      };
      recorder.start(500);
      setTimeout(() => recorder.state !== 'inactive' && recorder.stop(), RECORD_MS);
    }

    async function review(blob, contentType) {
      const hints = await imageHints(blob);
      if (hints.length === 0) return upload(blob, contentType);
      const url = URL.createObjectURL(blob);
      show(
        screen,
        h('h1', { text: step.title }),
        h('img', { src: url, alt: t('yourImage'), class: 'preview' }),
        h('div', { class: 'hints', role: 'alert' }, h('p', { text: t('hintsTitle') }), h('ul', {}, hints.map((key) => h('li', { 'data-hint': key.slice(5), text: t(key) })))),
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', onClick: () => { URL.revokeObjectURL(url); upload(blob, contentType); } }, t('useAnyway')),
          h('button', { type: 'button', class: 'secondary', onClick: () => { URL.revokeObjectURL(url); choose(); } }, t('retake'))),
      );
    }

    async function upload(blob, contentType) {
      const progress = h('progress', { max: '1', value: '0', 'aria-label': t('uploadProgress') });
      const status = h('p', { role: 'status', text: t('uploading') });
      show(screen, h('h1', { text: step.title }), status, progress);
      let created;
      try {
        created = await api.requestUpload({ kind: step.kind, content_type: contentType, ...(step.side ? { side: step.side } : {}), ...(step.documentType ? { document_type: step.documentType } : {}) });
      } catch (error) {
        return refused(error);
      }
      await put(created, blob, contentType, progress, status);
    }

    async function put(created, blob, contentType, progress, status) {
      try {
        if (created.upload_url) await putToStorage(created.upload_url, blob, contentType, (fraction) => (progress.value = fraction));
        progress.value = 1;
        await api.completeUpload(created.upload_id);
      } catch (error) {
        if (error instanceof ApiFailure && error.code !== 'UPLOAD_FAILED' && error.code !== 'NETWORK' && error.status < 500) return refused(error);
        const retry = h('button', { type: 'button', class: 'primary', onClick: () => { status.textContent = t('uploading'); retry.remove(); put(created, blob, contentType, progress, status); } }, t('retry'));
        status.textContent = t('uploadFailed');
        status.setAttribute('role', 'alert');
        screen.append(h('div', { class: 'actions' }, retry));
        retry.focus();
        return;
      }
      status.textContent = t('uploaded');
      resolve();
    }

    function refused(error) {
      if (error instanceof ApiFailure && (error.status === 401 || error.code === 'SESSION_EXPIRED' || error.code === 'SESSION_SUBMITTED')) {
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
