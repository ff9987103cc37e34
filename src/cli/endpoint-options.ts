// The options a pack adds to the commands that register one of its endpoints (`endpoints add`,
// `listen`): GitHub's --repo and --org, Slack's --team. One table, so both commands take the
// same flags and refuse one meant for another pack the same way.
import { UsageError, stringOption, type OptionSpec, type ParsedArgs } from './command.js';
import { cliPacks, type CliPack } from './pack-cli.js';

/** Every pack's own endpoint options, by name (no leading dashes). */
export function packEndpointOptions(): Record<string, OptionSpec> {
  const out: Record<string, OptionSpec> = {};
  for (const { cli } of cliPacks())
    for (const [name, description] of Object.entries(cli.endpointOptions ?? {}))
      out[name] = {
        type: 'string',
        value: { kind: 'text', nonEmpty: true },
        arg: name.toUpperCase(),
        description,
      };
  return out;
}

/**
 * The pack options given for `pack`, refusing (usage) one that belongs to another pack: `--repo`
 * on a Stripe endpoint means the user has the wrong pack or the wrong flag.
 */
export function endpointOptionsFor(pack: CliPack, args: ParsedArgs): Record<string, string> {
  const own = pack.cli.endpointOptions ?? {};
  const foreign = Object.keys(packEndpointOptions()).find(
    (o) => args.values[o] !== undefined && !Object.hasOwn(own, o),
  );
  if (foreign !== undefined)
    throw new UsageError(
      `--${foreign} is not an option of ${pack.name} endpoints${
        Object.keys(own).length === 0
          ? ''
          : `; ${pack.name} takes ${Object.keys(own)
              .map((o) => `--${o}`)
              .join(', ')}`
      }`,
    );
  const options: Record<string, string> = {};
  for (const name of Object.keys(own)) {
    const value = stringOption(args, name);
    if (value !== undefined) options[name] = value;
  }
  return options;
}
