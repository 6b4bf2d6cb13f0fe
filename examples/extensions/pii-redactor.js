// PII redactor: replaces e-mail addresses, phone numbers and payment card numbers in the text the
// client sends (Chat Completions `messages`, Anthropic `messages` and `system`, Responses `input`
// and `instructions`) before it reaches any upstream. A digit run is a card number only when it
// passes the Luhn check, so order numbers and timestamps are left alone.

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
// 13 to 19 digits, optionally grouped by spaces or hyphens.
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
// An optional +country code and area code, then groups of 2 to 4 digits.
const PHONE = /(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){2,3}\b/g;

function luhn(digits) {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** E.164 numbers have at most 15 digits; fewer than 9 is a date, a price or a count. */
function isPhoneLength(digits) {
  return digits >= 9 && digits <= 15;
}

export function redact(text) {
  return text
    .replace(EMAIL, '[EMAIL]')
    .replace(CARD, (match) => (luhn(match.replace(/\D/g, '')) ? '[CARD]' : match))
    .replace(PHONE, (match) => (isPhoneLength(match.replace(/\D/g, '').length) ? '[PHONE]' : match));
}

/** Redacts every string of a message's content: a string, or parts with `text`. */
function redactContent(content) {
  if (typeof content === 'string') return redact(content);
  if (!Array.isArray(content)) return content;
  return content.map((part) =>
    part !== null && typeof part === 'object' && typeof part.text === 'string'
      ? { ...part, text: redact(part.text) }
      : part,
  );
}

function redactMessages(messages) {
  if (!Array.isArray(messages)) return messages;
  return messages.map((message) =>
    message !== null && typeof message === 'object' ? { ...message, content: redactContent(message.content) } : message,
  );
}

export function beforeUpstream(call) {
  const body = { ...call.body };
  if (body.messages !== undefined) body.messages = redactMessages(body.messages);
  if (body.system !== undefined) body.system = redactContent(body.system);
  if (typeof body.instructions === 'string') body.instructions = redact(body.instructions);
  if (typeof body.input === 'string') body.input = redact(body.input);
  else if (Array.isArray(body.input)) body.input = redactMessages(body.input);
  if (JSON.stringify(body) === JSON.stringify(call.body)) return undefined;
  return { body };
}
