// The applicant API, authorised by the session's client token only.

/** An answer the service refused: the envelope's code, status and detail. */
export class ApiFailure extends Error {
  constructor(status, code, detail) {
    super(code);
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

export function createApi(sessionId, token) {
  const base = `/v1/hosted/verifications/${encodeURIComponent(sessionId)}`;
  async function call(method, path, body) {
    let res;
    try {
      res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiFailure(0, 'NETWORK');
    }
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw new ApiFailure(res.status, json?.error?.code ?? 'UNKNOWN', json?.error?.detail);
    return json;
  }
  return {
    session: () => call('GET', ''),
    consent: (decision, version) =>
      call('POST', '/consent', decision === 'agree' ? { decision, version } : { decision }),
    handoff: () => call('GET', '/handoff'),
    startEmail: (email) => call('POST', '/email', { email }),
    confirmEmail: (code) => call('POST', '/email/confirm', { code }),
    livenessChallenge: () => call('POST', '/liveness/challenge', {}),
    requestUpload: (input) => call('POST', '/uploads', input),
    completeUpload: (uploadId) => call('POST', `/uploads/${encodeURIComponent(uploadId)}/complete`, {}),
    submit: () => call('POST', '/submit', {}),
  };
}

/**
 * PUTs the bytes straight to the presigned URL (they never pass through the service),
 * reporting progress as a fraction; rejects with ApiFailure('UPLOAD_FAILED') on any failure.
 */
export function putToStorage(url, blob, contentType, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new ApiFailure(xhr.status, 'UPLOAD_FAILED'));
    xhr.onerror = () => reject(new ApiFailure(0, 'UPLOAD_FAILED'));
    xhr.onabort = () => reject(new ApiFailure(0, 'UPLOAD_FAILED'));
    xhr.send(blob);
  });
}
