/** One bwrap mount: its flags and the path inside the sandbox it lands on (mounts are applied shallowest first). */
export interface Mount {
  at: string;
  flags: string[];
}
