// What the detector knows about programs by name: those that only read (and print), build and
// test tools that work inside the workspace, and the programs some rule inspects. A program in
// none of these is unknown and judged by its arguments (rules/unknown-programs.ts).

/** Programs that read files or report state and change nothing (their output may still be redirected). */
export const READ_ONLY_PROGRAMS = new Set([
  'ls', 'dir', 'vdir', 'cat', 'bat', 'batcat', 'less', 'more', 'most', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack',
  'fd', 'fdfind', 'locate', 'sort', 'uniq', 'cut', 'paste', 'join', 'comm', 'column', 'fold', 'fmt', 'pr', 'expand', 'unexpand',
  'jq', 'yq', 'gojq', 'jless', 'diff', 'colordiff', 'cmp', 'sdiff', 'file', 'stat', 'du', 'df', 'which', 'type', 'whereis',
  'echo', 'printf', 'date', 'cal', 'uptime', 'whoami', 'id', 'groups', 'uname', 'hostname', 'hostnamectl', 'printenv', 'nproc', 'free',
  'top', 'htop', 'btop', 'ps', 'pgrep', 'pidof', 'lsof', 'ss', 'netstat', 'ip-show', 'history', 'man', 'info', 'help', 'tldr',
  'xxd', 'hexdump', 'hd', 'od', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'shasum', 'b2sum', 'cksum', 'base64', 'base32',
  'strings', 'tr', 'nl', 'tac', 'rev', 'basename', 'dirname', 'realpath', 'readlink', 'zcat', 'zless', 'zgrep', 'bzcat', 'xzcat',
  'tree', 'pwd', 'cd', 'pushd', 'popd', 'true', 'false', 'test', '[', '[[', 'sleep', 'seq', 'yes', 'tput', 'clear', 'reset-term',
  'export', 'set', 'unset', 'read', 'shift', 'local', 'declare', 'typeset', 'readonly', 'return', 'exit', 'wait', 'jobs', 'fg', 'bg',
  'times', 'umask', 'ulimit', 'getconf', 'locale', 'tty', 'stty', 'w', 'who', 'last', 'lscpu', 'lsblk', 'lsusb', 'lspci', 'lsmod',
  'dmesg', 'journalctl', 'vmstat', 'iostat', 'mpstat', 'sar', 'nvidia-smi', 'arch', 'env', 'tee', 'sed', 'awk', 'gawk', 'mawk',
  'nawk', 'cat-file', 'expr', 'bc', 'dc', 'factor', 'numfmt', 'shuf', 'split', 'csplit', 'iconv', 'dos2unix', 'unix2dos', 'look',
  'watch', 'time', 'timeout', 'nice', 'nohup', 'mktemp', 'dig', 'nslookup', 'host', 'ping', 'traceroute', 'tracepath', 'whois',
  'openssl-version', 'ldd', 'nm', 'objdump', 'readelf', 'size', 'pstree', 'fuser', 'getent', 'apropos', 'whatis', 'command',
  'builtin', 'hash', 'complete', 'compgen', 'shopt', 'trap', 'caller', 'let', 'pbpaste', 'xclip-o', 'tail-f', 'sw_vers', 'sysctl-a',
]);

/** Build, test and package tools: safe on the workspace (their rules look at what they are told to do). */
export const BUILD_TOOLS = new Set([
  'npm', 'npx', 'yarn', 'pnpm', 'pnpx', 'bun', 'bunx', 'node', 'nodejs', 'deno', 'tsc', 'ts-node', 'tsx', 'vite', 'webpack', 'rollup',
  'esbuild', 'parcel', 'turbo', 'nx', 'lerna', 'jest', 'vitest', 'mocha', 'ava', 'tap', 'playwright', 'cypress', 'eslint', 'prettier',
  'biome', 'stylelint', 'pip', 'pip3', 'pipx', 'poetry', 'uv', 'pdm', 'hatch', 'pipenv', 'conda-list', 'pytest', 'py.test', 'tox',
  'nox', 'black', 'ruff', 'mypy', 'pyright', 'flake8', 'pylint', 'isort', 'coverage', 'python', 'python3', 'make', 'gmake', 'cmake',
  'ninja', 'meson', 'bazel', 'bazelisk', 'buck', 'cargo', 'rustc', 'rustup', 'rustfmt', 'go', 'gofmt', 'golangci-lint', 'mvn', 'gradle',
  'gradlew', 'ant', 'sbt', 'lein', 'clojure', 'dotnet', 'msbuild', 'bundle', 'bundler', 'rake', 'rspec', 'ruby', 'gem', 'composer',
  'php', 'phpunit', 'mix', 'elixir', 'erl', 'rebar3', 'swift', 'swiftc', 'xcodebuild', 'gcc', 'g++', 'cc', 'c++', 'clang', 'clang++',
  'ld', 'ar', 'javac', 'java', 'kotlinc', 'scalac', 'ghc', 'cabal', 'stack', 'zig', 'nim', 'dart', 'flutter', 'pre-commit', 'husky',
  'lint-staged', 'commitlint', 'nodemon', 'concurrently', 'cross-env', 'dotenv', 'storybook', 'next', 'nuxt', 'astro', 'remix',
  'gatsby', 'ng', 'vue-cli-service', 'react-scripts', 'expo', 'protoc', 'buf', 'sqlc', 'prisma', 'drizzle-kit', 'alembic', 'flask',
  'django-admin', 'uvicorn', 'gunicorn', 'hypercorn', 'celery', 'jupyter', 'ipython', 'r', 'rscript', 'julia', 'perl', 'lua', 'luajit',
  'hyperfine', 'entr', 'watchexec', 'direnv', 'asdf', 'mise', 'nvm', 'pyenv', 'rbenv', 'sdk', 'brew', 'pandoc-version', 'shellcheck',
  'shfmt', 'hadolint', 'yamllint', 'markdownlint', 'actionlint', 'tflint', 'codespell', 'typos', 'cspell', 'git-lfs', 'ctags',
]);

/** Programs that a rule module inspects by name (their behaviour is known; the rules decide). */
const RULE_PROGRAMS = new Set([
  'rm', 'unlink', 'rmdir', 'find', 'xargs', 'rsync', 'cp', 'mv', 'ln', 'install', 'touch', 'mkdir', 'chmod', 'chown', 'chgrp', 'dd',
  'truncate', 'shred', 'wipefs', 'fallocate', 'srm', 'wipe', 'blkdiscard', 'sgdisk', 'sfdisk', 'fdisk', 'parted', 'cfdisk', 'mkswap',
  'kill', 'pkill', 'killall', 'killall5', 'shutdown', 'reboot', 'halt', 'poweroff', 'init', 'telinit', 'systemctl', 'service',
  'rc-service', 'launchctl', 'docker', 'podman', 'nerdctl', 'ctr', 'docker-compose', 'podman-compose', 'kubectl', 'oc', 'helm',
  'terraform', 'tofu', 'terragrunt', 'pulumi', 'aws', 'gcloud', 'gsutil', 'bq', 'az', 'redis-cli', 'mongo', 'mongosh', 'psql', 'mysql',
  'mariadb', 'sqlite3', 'sqlite', 'dropdb', 'dropuser', 'mysqladmin', 'heroku', 'gh', 'glab', 'git', 'curl', 'wget', 'nc', 'ncat',
  'netcat', 'socat', 'scp', 'sftp', 'ssh', 'ssh-keygen', 'ssh-add', 'ssh-copy-id', 'tar', 'zip', 'unzip', 'gzip', 'gunzip', 'bzip2',
  'xz', 'zstd', '7z', 'crontab', 'at', 'batch', 'sudo', 'su', 'doas', 'visudo', 'usermod', 'useradd', 'userdel', 'passwd', 'chpasswd',
  'setcap', 'openssl', 'gpg', 'alias', 'eval', 'source', '.', 'exec', 'hermes', 'cmd', 'powershell', 'pwsh', 'apt', 'apt-get', 'dpkg',
  'yum', 'dnf', 'rpm', 'pacman', 'zypper', 'snap', 'apk', 'port', 'flatpak', 'iptables', 'ip6tables', 'ufw', 'nft', 'ip', 'patch',
  'mount', 'umount', 'swapoff', 'modprobe', 'rmmod', 'insmod', 'sysctl', 'hostnamectl-set', 'timedatectl', 'chattr', 'setfacl',
]);

export function isReadOnlyProgram(program: string): boolean {
  return READ_ONLY_PROGRAMS.has(program);
}

export function isBuildTool(program: string): boolean {
  return BUILD_TOOLS.has(program) || /^python\d(?:\.\d+)?$/.test(program) || /^pip\d(?:\.\d+)?$/.test(program);
}

/** The detector knows what this program does (shells and interpreters included). */
export function isKnownProgram(program: string): boolean {
  return READ_ONLY_PROGRAMS.has(program) || isBuildTool(program) || RULE_PROGRAMS.has(program);
}

/** Known programs whose names are also everyday subcommand verbs (`task install`, `just init`): not taken for a command. */
const COMMON_VERBS = new Set(['install', 'init', 'service', 'at', 'batch', 'port', 'ip', 'patch', 'mount', 'source', '.', 'hermes', 'cmd', 'alias', 'touch', 'mkdir', 'link']);

/** Programs that run, fetch or escalate: an unknown program handed one of these may be a launcher. */
const POWERFUL_PROGRAMS = new Set(['sudo', 'su', 'doas', 'run0', 'pkexec', 'eval', 'exec', 'curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'xargs', 'nohup', 'setsid', 'chroot', 'nsenter', 'unshare', 'busybox', 'env', 'dd', 'rm', 'mkfs', 'shred', 'kill', 'pkill', 'killall']);

/** An argument of an unknown program with this name is judged as a command (`wrapme rm -rf /`). */
export function isSpeculationTarget(program: string, shell: boolean): boolean {
  if (shell) return true;
  return RULE_PROGRAMS.has(program) && !COMMON_VERBS.has(program) && !READ_ONLY_PROGRAMS.has(program) && !isBuildTool(program);
}

/** A shell or one of the powerful programs: an unknown program given it needs approval by itself. */
export function isPowerfulProgram(program: string): boolean {
  return POWERFUL_PROGRAMS.has(program) || /^mkfs/.test(program);
}
