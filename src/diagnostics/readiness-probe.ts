/**
 * A dependency `/health/ready` checks (SPEC.md, Endpoints: Health). Declared here, on the ground
 * floor, so a feature can hand its probe to the HTTP shell without importing upward.
 */
export interface ReadinessProbe {
  name: string;
  check(): Promise<void>;
}
