/**
 * An AWS STS stand-in on port 0 speaking the Query protocol the SDK uses (STS API Reference,
 * "AssumeRole", "AssumeRoleWithWebIdentity"): form-encoded `Action=...` POSTs in, XML answers out,
 * errors in STS's `<ErrorResponse>` shape. Reached through the SDK's own endpoint override,
 * `AWS_ENDPOINT_URL_STS`.
 *
 * AssumeRole checks the caller's SigV4 signature (service `sts`) against the credentials the fake
 * trusts, and the role's external id when the role demands one; AssumeRoleWithWebIdentity is
 * unsigned, as on AWS, and checks the token. Each granted role hands out its own temporary
 * credentials, with an expiration from `expiresAt`.
 */
import type { AwsCredentials } from '../../src/providers/bedrock/sigv4.ts';
import type { FakeResponder } from './fake-responder.ts';
import { FakeServer, type RecordedRequest } from './fake-server.ts';
import { verifySigV4 } from './sigv4-verify.ts';

export interface FakeRole {
  roleArn: string;
  /** The external id the role's trust policy demands; absent: none. */
  externalId?: string;
  /** What AssumeRole hands out; the session token is required (temporary credentials). */
  issues: Required<AwsCredentials>;
}

export interface AwsStsFakeOptions {
  region: string;
  /** Credentials allowed to call AssumeRole. */
  callers: AwsCredentials[];
  roles: FakeRole[];
  /** The token AssumeRoleWithWebIdentity accepts. */
  webIdentityToken?: string;
}

const NAMESPACE = 'https://sts.amazonaws.com/doc/2011-06-15/';

export class AwsStsFake extends FakeServer {
  readonly #options: AwsStsFakeOptions;
  /** When the credentials it hands out expire; an hour from now by default (STS's default duration). */
  expiresAt: () => Date = () => new Date(Date.now() + 3600_000);

  constructor(options: AwsStsFakeOptions) {
    super((request, responder) => this.#route(request, responder));
    this.#options = options;
  }

  /** The calls of one action, in order. */
  calls(action: 'AssumeRole' | 'AssumeRoleWithWebIdentity'): URLSearchParams[] {
    return this.requests
      .map((request) => new URLSearchParams(request.rawBody))
      .filter((p) => p.get('Action') === action);
  }

  #route(request: RecordedRequest, res: FakeResponder): void {
    const reply = this.#answer(request);
    res.text(reply.status, reply.xml, 'text/xml');
  }

  #answer(request: RecordedRequest): XmlReply {
    const params = new URLSearchParams(request.rawBody);
    const action = params.get('Action');
    if (request.method !== 'POST' || params.get('Version') !== '2011-06-15') {
      return stsError(400, 'InvalidAction', 'Could not find operation for this request.');
    }
    if (action === 'AssumeRole') return this.#assumeRole(request, params);
    if (action === 'AssumeRoleWithWebIdentity') return this.#withWebIdentity(params);
    return stsError(400, 'InvalidAction', `Could not find operation ${action} for version 2011-06-15`);
  }

  #assumeRole(request: RecordedRequest, params: URLSearchParams): XmlReply {
    const caller = this.#options.callers.find((credentials) =>
      String(request.headers.authorization ?? '').includes(`Credential=${credentials.accessKeyId}/`),
    );
    const failure =
      caller === undefined
        ? { type: 'InvalidClientTokenId', message: 'The security token included in the request is invalid.' }
        : verifySigV4(request, { credentials: caller, region: this.#options.region, service: 'sts' });
    if (failure !== null) return stsError(403, failure.type, failure.message);
    const role = this.#options.roles.find((candidate) => candidate.roleArn === params.get('RoleArn'));
    if (
      role === undefined ||
      (role.externalId !== undefined && role.externalId !== params.get('ExternalId'))
    ) {
      return stsError(403, 'AccessDenied', 'User is not authorized to perform: sts:AssumeRole');
    }
    if (!/^[\w+=,.@-]{2,64}$/.test(params.get('RoleSessionName') ?? '')) {
      return stsError(400, 'ValidationError', 'Invalid RoleSessionName');
    }
    return { status: 200, xml: this.#result('AssumeRole', role, params) };
  }

  #withWebIdentity(params: URLSearchParams): XmlReply {
    const token = this.#options.webIdentityToken;
    if (token === undefined || params.get('WebIdentityToken') !== token) {
      return stsError(400, 'InvalidIdentityToken', 'The web identity token that was passed is not valid.');
    }
    const role = this.#options.roles.find((candidate) => candidate.roleArn === params.get('RoleArn'));
    if (role === undefined) {
      return stsError(403, 'AccessDenied', 'Not authorized to perform sts:AssumeRoleWithWebIdentity');
    }
    return { status: 200, xml: this.#result('AssumeRoleWithWebIdentity', role, params) };
  }

  #result(action: string, role: FakeRole, params: URLSearchParams): string {
    const { accessKeyId, secretAccessKey, sessionToken } = role.issues;
    const session = params.get('RoleSessionName') ?? 'session';
    return `<${action}Response xmlns="${NAMESPACE}">
  <${action}Result>
    <Credentials>
      <AccessKeyId>${accessKeyId}</AccessKeyId>
      <SecretAccessKey>${secretAccessKey}</SecretAccessKey>
      <SessionToken>${sessionToken}</SessionToken>
      <Expiration>${this.expiresAt().toISOString()}</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <AssumedRoleId>AROAFAKEROLEID:${session}</AssumedRoleId>
      <Arn>${role.roleArn.replace(':iam:', ':sts:').replace(':role/', ':assumed-role/')}/${session}</Arn>
    </AssumedRoleUser>
  </${action}Result>
  <ResponseMetadata><RequestId>fake-sts-request</RequestId></ResponseMetadata>
</${action}Response>`;
  }
}

interface XmlReply {
  status: number;
  xml: string;
}

function stsError(status: number, code: string, message: string): XmlReply {
  return {
    status,
    xml: `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>fake-sts-request</RequestId></ErrorResponse>`,
  };
}
