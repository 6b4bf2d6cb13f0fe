/**
 * A self-signed certificate for 127.0.0.1, made at test time with the system's `openssl`, for the
 * fakes that must speak HTTPS (Microsoft Entra ID's authority: `@azure/identity` and MSAL refuse a
 * plain-HTTP one). `trustInThisProcess` adds it to the process's default CA list
 * (`tls.setDefaultCACertificates`, Node 24), as NODE_EXTRA_CA_CERTS would at start-up, so the
 * in-process gateway's identity clients trust the fake and nothing else changes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

export interface TestCertificate {
  key: string;
  cert: string;
}

let made: TestCertificate | null = null;

/** One certificate per test process: every HTTPS fake of the process serves it. */
export function testCertificate(): TestCertificate {
  if (made !== null) return made;
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=switchyard-test-fake',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    made = {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
    return made;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let trusted = false;

/** Trusts the test certificate for every later TLS connection of this process. */
export function trustInThisProcess(): void {
  if (trusted) return;
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), testCertificate().cert]);
  trusted = true;
}
