import { handleUploadPut } from '@/server/http/upload-put';

export const dynamic = 'force-dynamic';
export const PUT = handleUploadPut;
