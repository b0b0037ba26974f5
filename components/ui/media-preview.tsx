import type { MediaLink } from '@/server/trpc/outputs';
import { formatDate } from './format';

/** Plays or shows media through a fresh short-lived URL, with a download link and its expiry. */
export function MediaPreview(props: { link: MediaLink; name: string; label: string }) {
  const { link } = props;
  const kind = link.mime_type.split('/')[0];
  return (
    <div className="stack media-preview">
      {kind === 'video' ? (
        <video controls preload="metadata" src={link.url} aria-label={props.label} data-testid="media-video">
          <track kind="captions" />
        </video>
      ) : kind === 'audio' ? (
        <audio controls preload="metadata" src={link.url} aria-label={props.label} data-testid="media-audio" />
      ) : kind === 'image' ? (
        // eslint-disable-next-line @next/next/no-img-element -- a private signed URL, not an optimisable asset
        <img src={link.url} alt={props.label} data-testid="media-image" />
      ) : (
        <p className="muted">No preview for {link.mime_type}.</p>
      )}
      <div className="actions">
        <a className="button button-secondary" href={link.url} download={props.name}>
          Download
        </a>
        <span className="muted">Link valid until {formatDate(link.expires_at)}; a new one is made each time this page loads.</span>
      </div>
    </div>
  );
}
