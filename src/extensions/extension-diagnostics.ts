/** Published by the extension runtime when an extension's breaker trips; alerts subscribe. */
export const EXTENSION_TRIPPED_CHANNEL = 'switchyard:extensions:tripped';

export interface ExtensionTrippedMessage {
  extensionId: string;
  critical: boolean;
  reason: string;
}
