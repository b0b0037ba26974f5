-- A delivery's last error is shown to the key's owner (dashboard and portal), and errors recorded
-- before this named the address an endpoint's name resolved to ("refused: hooks.example.com
-- (10.0.0.5) is a private address ...", "connect ECONNREFUSED 10.0.0.5:443"). Refusals keep their
-- host in the words used now; any other error not in a form known to hold no address loses its
-- details.
UPDATE webhook_deliveries
   SET last_error = CASE
         WHEN last_error ~ '^refused: \S+ .*(metadata|link-local)'
           THEN regexp_replace(last_error, '^refused: (\S+) .*$', 'refused: \1 is a private or reserved address that is never reached (link-local or cloud metadata)')
         WHEN last_error ~ '^refused: \S+ .*private address'
           THEN regexp_replace(last_error, '^refused: (\S+) .*$', 'refused: \1 is a private or reserved address')
         ELSE 'the attempt failed without an answer (the details an earlier version recorded are not kept)'
       END
 WHERE last_error IS NOT NULL
   AND last_error !~ '^(HTTP \d{3}$|no complete answer within |the endpoint URL |the signing secret cannot be decrypted )';
