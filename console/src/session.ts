/**
 * The master key lives in this tab's sessionStorage only: never in a URL, a cookie or
 * localStorage, so it goes when the tab closes or on "Sign out".
 */
const SLOT = 'switchyard.masterKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(SLOT);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(SLOT, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(SLOT);
}
