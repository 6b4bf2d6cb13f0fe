import { ExtensionSandbox } from './extension-sandbox.ts';

const PROBE_SOURCE = 'export function beforeUpstream(call) { return { body: { sum: call.a + call.b } }; }';
const PROBE_LIMITS = Object.freeze({ timeoutMs: 1_000, memoryMb: 8 });

/**
 * The extension runtime's readiness check (SPEC.md, Health): a trivial hook must run in an isolate
 * and answer right. Its isolate is built once and rebuilt if it was lost.
 */
export class ReadinessProbe {
  #sandbox: Promise<ExtensionSandbox> | null = null;
  /** Every isolate this probe let go of, freed: `dispose` waits for them all. */
  #freed: Promise<void> = Promise.resolve();

  async check(): Promise<void> {
    this.#sandbox ??= ExtensionSandbox.create(PROBE_SOURCE, PROBE_LIMITS, 1_000);
    try {
      const sandbox = await this.#sandbox;
      const result = (await sandbox.call('beforeUpstream', { a: 2, b: 3 })) as { body?: { sum?: number } };
      if (result?.body?.sum !== 5) throw new Error('the extension runtime probe answered wrong');
    } catch (error) {
      void this.dispose();
      throw error;
    }
  }

  /** Lets go of the isolate; resolves once it and every one let go of before are freed. */
  dispose(): Promise<void> {
    const sandbox = this.#sandbox;
    this.#sandbox = null;
    const freed = sandbox?.then(
      (it) => it.dispose(),
      () => undefined,
    );
    // Settled to nothing, so a probe that fails again and again holds no chain of results.
    this.#freed = Promise.all([this.#freed, freed]).then(() => undefined);
    return this.#freed;
  }
}
