// What to tell the user when a direct probe fails: the connection error in plain words, and what to
// do about a refused connection or a certificate this machine does not trust.
import * as net from 'node:net';
import { formatDuration } from '../../shared/format';
import { errorCode, errorMessage, formatHostPort } from './network';
import type { ProxySettings } from './types';

export function describeConnectError(error: unknown, address: string, port: number, timeoutMs: number): string {
  const where = formatHostPort(address, port);
  switch (errorCode(error)) {
    case 'ECONNREFUSED':
      return `connection refused at ${where}: is the service running?`;
    case 'ETIMEDOUT':
      return `no connection to ${where} within ${formatDuration(timeoutMs)}: a firewall, a VPN or a proxy-only network?`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} cannot be reached from this machine (${errorCode(error) ?? ''}).`;
    case 'ECONNRESET':
      return `the connection to ${where} was reset.`;
    default:
      return `could not connect to ${where} (${errorCode(error) ?? errorMessage(error)}).`;
  }
}

export function tcpAdvice(code: string | undefined, hostname: string): string {
  if (code === 'ECONNREFUSED') {
    return net.isIP(hostname) !== 0 || hostname === 'localhost'
      ? 'Start the service (for the reference service: npm run service), or correct the port in applicationQuery.baseUrl.'
      : 'Nothing listens on that port: check the port in applicationQuery.baseUrl and that the service is up.';
  }
  return 'Check applicationQuery.baseUrl, your network, VPN and firewall; on a network that only allows a proxy, set http.proxy.';
}

export function certificateAdvice(code: string, env: Readonly<Record<string, string | undefined>>, settings: ProxySettings): string {
  const extraCa = env['NODE_EXTRA_CA_CERTS'];
  const system = settings.systemCertificates === false ? ' VS Code\'s http.systemCertificates is off: turn it on so the operating system\'s certificates are trusted.' : '';
  switch (code) {
    case 'CERT_HAS_EXPIRED':
      return 'The service\'s certificate has expired: the service must renew it. If it should still be valid, check this machine\'s clock.';
    case 'CERT_NOT_YET_VALID':
      return 'The certificate is not valid yet: check this machine\'s clock and time zone.';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
    case 'HOSTNAME_MISMATCH':
      return 'The certificate is for other host names: check the host in applicationQuery.baseUrl (or a proxy is answering in the service\'s place).';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    default:
      return (
        'The certificate is signed by an authority this machine does not trust: a self-signed certificate, or a corporate proxy that inspects TLS. ' +
        'Add that authority\'s certificate to the operating system\'s store (VS Code uses it while http.systemCertificates is on), ' +
        `or save it as a PEM file and set the environment variable NODE_EXTRA_CA_CERTS to its path before starting VS Code${extraCa === undefined || extraCa === '' ? '' : ` (it is set to ${extraCa}: does that file hold the right authority?)`}. ` +
        `Behind a corporate proxy, ask for its CA certificate and set http.proxy.${system}`
      );
  }
}
