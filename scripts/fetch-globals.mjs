// esbuild `inject`: in the bundle, the free names Headers, Response and FormData mean these light stand-ins, so that
// no run loads Node's fetch implementation (see src/api/light-fetch-types.ts). Request is not used. `performance`
// means the monotonic clock of src/clock.ts (only its now() exists), so that no code in the bundle loads perf_hooks;
// being injected, the clock also sits in the chunk every other chunk loads, not in one of its own.
export {
  LightHeaders as Headers,
  LightResponse as Response,
  NoFormData as FormData,
} from '../src/api/light-fetch-types.ts';
export { monotonicClock as performance } from '../src/clock.ts';
