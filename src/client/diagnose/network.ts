// The direct probes of Diagnose Connection, each bounded by a timeout: a TCP connect, a TLS
// handshake that describes the certificate even when it is not trusted, and a first response byte.
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { formatDuration } from '../../shared/format';
import type { TlsFinding } from './types';

export function connectTcp(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no connection within ${formatDuration(timeoutMs)}`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

export function probeTls(address: string, hostname: string, port: number, timeoutMs: number): Promise<TlsFinding> {
  return new Promise<TlsFinding>((resolve, reject) => {
    // Verification is done by hand below, so the certificate can be described even when it is not trusted.
    const socket = tls.connect({ host: address, port, rejectUnauthorized: false, ...(net.isIP(hostname) === 0 ? { servername: hostname } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no TLS handshake within ${formatDuration(timeoutMs)}`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate();
      const reason: unknown = socket.authorizationError;
      const errorCode = typeof reason === 'string' ? reason : reason instanceof Error ? ((reason as { code?: string }).code ?? reason.message) : undefined;
      const found: TlsFinding = {
        protocol: socket.getProtocol() ?? undefined,
        cipher: socket.getCipher()?.name,
        subject: describeName(cert.subject),
        issuer: describeName(cert.issuer),
        validTo: cert.valid_to === undefined ? undefined : new Date(cert.valid_to).toISOString(),
        trusted: socket.authorized,
        ...(socket.authorized || errorCode === undefined ? {} : { errorCode }),
      };
      socket.destroy();
      resolve(found);
    });
    socket.once('error', (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

function describeName(name: tls.PeerCertificate['subject'] | undefined): string | undefined {
  if (name === undefined || name === null) {
    return undefined;
  }
  const parts: string[] = [];
  for (const field of ['CN', 'O', 'OU', 'C'] as const) {
    const value: unknown = name[field];
    const text = Array.isArray(value) ? value.join(' + ') : typeof value === 'string' ? value : '';
    if (text !== '') {
      parts.push(`${field}=${text}`);
    }
  }
  return parts.length === 0 ? undefined : parts.join(', ');
}

export function firstByte(target: string, timeoutMs: number): Promise<{ status: number; contentType: string }> {
  return new Promise((resolve, reject) => {
    const client = target.startsWith('https:') ? https : http;
    const request = client.request(target, { method: 'GET', agent: false, headers: { Accept: 'application/json, */*;q=0.5' } }, (response) => {
      clearTimeout(timer);
      resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? '') });
      response.destroy();
      request.destroy();
    });
    const timer = setTimeout(() => {
      request.destroy(Object.assign(new Error(`no response within ${formatDuration(timeoutMs)}`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end();
  });
}

export function formatHostPort(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(message), { code: 'ETIMEDOUT' })), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
