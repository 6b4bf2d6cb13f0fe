import { z } from 'zod';

/** The largest value the `rpm_limit` and `tpm_limit` columns (Postgres `integer`) hold. */
export const MAX_RATE_LIMIT = 2_147_483_647;

/** An RPM or TPM limit of a deployment or a virtual key (DESIGN.md section 5). */
export const rateLimitSchema = z
  .number()
  .int('expected an integer')
  .positive('expected a positive integer')
  .max(MAX_RATE_LIMIT, `expected at most ${MAX_RATE_LIMIT}`);
