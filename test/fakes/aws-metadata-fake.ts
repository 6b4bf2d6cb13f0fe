/**
 * The two AWS credential endpoints a workload reads its own identity from, on port 0:
 *
 * - the EC2 instance metadata service, IMDSv2 (EC2 User Guide, "Retrieve security credentials from
 *   instance metadata"): `PUT /latest/api/token` with `x-aws-ec2-metadata-token-ttl-seconds` gives a
 *   session token, which every `GET /latest/meta-data/iam/security-credentials/[role]` must carry in
 *   `x-aws-ec2-metadata-token`; reached through `AWS_EC2_METADATA_SERVICE_ENDPOINT`;
 * - the container credentials endpoint (ECS, EKS Pod Identity): `GET /credentials`, with the
 *   `Authorization` token when one is set; reached through `AWS_CONTAINER_CREDENTIALS_FULL_URI`.
 */
import type { AwsCredentials } from '../../src/providers/bedrock/sigv4.ts';
import type { FakeReply, FakeResponder } from './fake-responder.ts';
import { FakeServer, type RecordedRequest } from './fake-server.ts';

export interface AwsMetadataFakeOptions {
  /** The instance profile's role name. */
  roleName: string;
  credentials: Required<AwsCredentials>;
  /** The container endpoint's `Authorization` token; absent: none asked. */
  containerToken?: string;
}

const IMDS_TOKEN = 'fake-imds-session-token';
const CREDENTIALS_PATH = '/latest/meta-data/iam/security-credentials/';

export class AwsMetadataFake extends FakeServer {
  readonly #options: AwsMetadataFakeOptions;
  expiresAt: () => Date = () => new Date(Date.now() + 6 * 3600_000);

  constructor(options: AwsMetadataFakeOptions) {
    super((request, responder) => this.#route(request, responder));
    this.#options = options;
  }

  /** The `AWS_CONTAINER_CREDENTIALS_FULL_URI` of this fake. */
  get containerUri(): string {
    return `${this.url}/credentials`;
  }

  #route(request: RecordedRequest, res: FakeResponder): void {
    res.send(this.#answer(request));
  }

  #answer(request: RecordedRequest): FakeReply {
    if (request.method === 'PUT' && request.path === '/latest/api/token') {
      const ttl = request.headers['x-aws-ec2-metadata-token-ttl-seconds'];
      return ttl === undefined ? { status: 400, body: 'Bad Request' } : { status: 200, body: IMDS_TOKEN };
    }
    if (request.method === 'GET' && request.path.startsWith(CREDENTIALS_PATH)) return this.#instance(request);
    if (request.method === 'GET' && request.path === '/credentials') {
      const token = this.#options.containerToken;
      if (token !== undefined && request.headers.authorization !== token) {
        return { status: 401, body: { message: 'denied' } };
      }
      const roleArn = `arn:aws:iam::123456789012:role/${this.#options.roleName}`;
      return { status: 200, body: { RoleArn: roleArn, ...this.#body() } };
    }
    return { status: 404, body: 'Not Found' };
  }

  #instance(request: RecordedRequest): FakeReply {
    if (request.headers['x-aws-ec2-metadata-token'] !== IMDS_TOKEN)
      return { status: 401, body: 'Unauthorized' };
    const role = request.path.slice(CREDENTIALS_PATH.length);
    if (role === '') return { status: 200, body: this.#options.roleName };
    if (role !== this.#options.roleName) return { status: 404, body: 'Not Found' };
    const fields = { Code: 'Success', Type: 'AWS-HMAC', LastUpdated: new Date().toISOString() };
    return { status: 200, body: { ...fields, ...this.#body() } };
  }

  #body(): Record<string, string> {
    const { accessKeyId, secretAccessKey, sessionToken } = this.#options.credentials;
    return {
      AccessKeyId: accessKeyId,
      SecretAccessKey: secretAccessKey,
      Token: sessionToken,
      Expiration: this.expiresAt().toISOString(),
    };
  }
}
