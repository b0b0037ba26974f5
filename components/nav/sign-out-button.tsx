'use client';
import { signOut } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';

export function SignOutButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="button button-secondary"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        // No redirect by next-auth: its URL is built from NEXTAUTH_URL, which may name another host.
        void signOut({ redirect: false }).finally(() => {
          router.replace('/signin');
          router.refresh();
        });
      }}
    >
      Sign out
    </button>
  );
}
