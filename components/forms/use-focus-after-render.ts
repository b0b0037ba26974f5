'use client';
import { useCallback, useEffect, useRef } from 'react';

/**
 * Moves the focus once the next render is on the page: a control that removes or disables the
 * button just pressed (a tag's ×, an engine moved to the end) would otherwise leave the keyboard's
 * focus on the page's body. `focusLater(id)` names the element, by id, to take it; call it with
 * the state change that renders again.
 */
export function useFocusAfterRender(): (id: string) => void {
  const target = useRef<string | null>(null);
  useEffect(() => {
    if (target.current === null) return;
    document.getElementById(target.current)?.focus();
    target.current = null;
  });
  return useCallback((id: string) => {
    target.current = id;
  }, []);
}
