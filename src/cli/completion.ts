// `twinworld completion bash|zsh|fish`: a completion script for the shell, generated from the
// command table itself, so a new command or option completes without anyone editing a script.
import type { Command } from './command.js';
import { COMMON_OPTIONS } from './command.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

function optionsOf(c: Command): string[] {
  return Object.keys({ ...c.options, ...COMMON_OPTIONS }).map((o) => `--${o}`);
}

function bash(commands: readonly Command[]): string {
  const names = [...commands.map((c) => c.name), 'help', 'completion'].join(' ');
  const cases = commands
    .map((c) => `    ${c.name}) opts="${optionsOf(c).join(' ')}" ;;`)
    .join('\n');
  return `# twinworld completion for bash: eval "$(twinworld completion bash)"
_twinworld() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${names} --help --version" -- "$cur") ); return
  fi
  case "$cmd" in
${cases}
    help) opts="${commands.map((c) => c.name).join(' ')}" ;;
    completion) opts="${SHELLS.join(' ')}" ;;
  esac
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
}
complete -o default -F _twinworld twinworld
`;
}

function zsh(commands: readonly Command[]): string {
  // zsh runs bash completion functions through bashcompinit: one script to keep true.
  return `# twinworld completion for zsh: eval "$(twinworld completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bash(commands)}`;
}

function fish(commands: readonly Command[]): string {
  const lines = [
    '# twinworld completion for fish: twinworld completion fish | source',
    'complete -c twinworld -f',
  ];
  for (const c of commands)
    lines.push(
      `complete -c twinworld -n __fish_use_subcommand -a ${c.name} -d '${c.summary.replace(/'/g, "\\'")}'`,
    );
  lines.push("complete -c twinworld -n __fish_use_subcommand -a help -d 'Show help for a command'");
  lines.push(
    "complete -c twinworld -n __fish_use_subcommand -a completion -d 'Print a shell completion script'",
  );
  for (const c of commands)
    for (const o of optionsOf(c))
      lines.push(
        `complete -c twinworld -n '__fish_seen_subcommand_from ${c.name}' -l ${o.slice(2)}`,
      );
  lines.push(
    `complete -c twinworld -n '__fish_seen_subcommand_from completion' -a '${SHELLS.join(' ')}'`,
  );
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: string, commands: readonly Command[]): string | undefined {
  if (shell === 'bash') return bash(commands);
  if (shell === 'zsh') return zsh(commands);
  if (shell === 'fish') return fish(commands);
  return undefined;
}
