// A tiny seccomp filter for the local sandbox, as the raw `struct sock_filter` array bwrap's
// `--seccomp FD` loads. It refuses new Unix-domain sockets (a read-only bind does not stop
// `connect()` to a socket file: Docker's, an agent's, a database's) and io_uring (which could
// open them without the `socket` call). Socket pairs, TCP and UDP stay allowed.
import os from 'node:os';

const LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_AT_LEAST = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RETURN = 0x06; // BPF_RET | BPF_K

const RETURN_ALLOW = 0x7fff0000;
const RETURN_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const RETURN_EPERM = 0x00050000 | EPERM;
const AF_UNIX = 1;
/** Offsets in `struct seccomp_data`: nr, arch, args[0] (low word on little-endian machines). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_FIRST_ARGUMENT = 16;
/** x32 system calls carry this bit on x86-64; they would bypass the numbers below. */
const X32_SYSCALL_BIT = 0x40000000;

interface Architecture {
  audit: number;
  socket: number;
  ioUringSetup: number;
  hasX32: boolean;
}

const ARCHITECTURES: Partial<Record<string, Architecture>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425, hasX32: true },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425, hasX32: false },
};

type Instruction = [code: number, jumpTrue: number, jumpFalse: number, value: number];

/** The filter for this machine's architecture, or undefined where none is known. */
export function unixSocketFilter(arch: string = os.arch()): Buffer | undefined {
  const machine = ARCHITECTURES[arch];
  if (!machine) return undefined;
  // Jump offsets count instructions after the jumping one; the three returns sit at the end.
  const program: Instruction[] = [
    [LOAD_WORD, 0, 0, OFFSET_ARCH],
    [JUMP_EQUAL, 1, 0, machine.audit],
    [RETURN, 0, 0, RETURN_KILL_PROCESS], // another ABI (i386 on x86-64): not this filter's numbers
    [LOAD_WORD, 0, 0, OFFSET_NR],
    [JUMP_AT_LEAST, machine.hasX32 ? 5 : 0, 0, machine.hasX32 ? X32_SYSCALL_BIT : 0xffffffff],
    [JUMP_EQUAL, 4, 0, machine.ioUringSetup],
    [JUMP_EQUAL, 0, 2, machine.socket],
    [LOAD_WORD, 0, 0, OFFSET_FIRST_ARGUMENT],
    [JUMP_EQUAL, 1, 0, AF_UNIX],
    [RETURN, 0, 0, RETURN_ALLOW],
    [RETURN, 0, 0, RETURN_EPERM],
  ];
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach(([code, jumpTrue, jumpFalse, value], index) => {
    buffer.writeUInt16LE(code, index * 8);
    buffer.writeUInt8(jumpTrue, index * 8 + 2);
    buffer.writeUInt8(jumpFalse, index * 8 + 3);
    buffer.writeUInt32LE(value >>> 0, index * 8 + 4);
  });
  return buffer;
}
