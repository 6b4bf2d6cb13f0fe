/** Light or dark: the system's choice until the operator picks one (kept in localStorage; not a secret). */
const SLOT = 'switchyard.theme';

export type Theme = 'light' | 'dark';

export function initialTheme(): Theme {
  const saved = localStorage.getItem(SLOT);
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  localStorage.setItem(SLOT, theme);
}
