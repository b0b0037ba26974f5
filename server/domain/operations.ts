// The operations and their enums are the interface's: defined in contract/values.ts, named here
// for the domain's many importers.
export {
  INPUT_UPLOAD_PURPOSES,
  IMAGE_OUTPUT_FORMATS,
  OPERATIONS,
  SPEECH_OUTPUT_FORMATS,
  TEXT_OUTPUT_FORMATS,
  TIMESTAMP_MODES,
  type Operation,
  type UploadPurpose,
} from '../contract/values';
