// Whether the text given where serve wants an environment variable's NAME is a signing secret
// itself — the whsec_… that `stripe listen` or `twinworld endpoints add` printed, a GitHub or Slack
// hex secret. Said so without echoing it: "variable whsec_… is not set" put the secret in the
// message, and in every log that kept it, while leaving the mistake unexplained.

const SHAPES = [
  /^whsec_/i, // Stripe, Standard Webhooks (Svix)
  /^(sk|rk|pk)_(test|live)_/, // a Stripe API key pasted in the wrong place
  /^[0-9a-f]{32,}$/i, // GitHub's 40 hex, Slack's 32
  /[=+/]/, // base64: never part of a variable name
];

export function isSecretShaped(name: string): boolean {
  return SHAPES.some((shape) => shape.test(name));
}
