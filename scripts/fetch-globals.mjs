// esbuild `inject`: in the bundle, the free names Headers, Response and FormData mean these light stand-ins, so that
// no run loads Node's fetch implementation (see src/api/light-fetch-types.ts). Request is not used.
export {
  LightHeaders as Headers,
  LightResponse as Response,
  NoFormData as FormData,
} from '../src/api/light-fetch-types.ts';
