import { callSlot } from '../pipeline/call-slot.ts';

/** `x-gateway-cache` (DESIGN.md section 5): answered from the cache, looked up and missed, or not looked up. */
export type ResponseCacheStatus = 'hit' | 'miss' | 'bypass';

/** What the response cache did for a call; unset when the cache is off. Read by the records. */
export const RESPONSE_CACHE_STATUS = callSlot<ResponseCacheStatus>('response-cache.status');
