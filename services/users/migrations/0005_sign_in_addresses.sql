-- Sign-in attempts per back-off counter and client address since that address's last success
-- there. A locked counter still admits an address without any, so that strangers failing from
-- many addresses cannot lock the owner out (docs/api/accounts.md, "Sign-in";
-- domain/sign-in-throttle.ts). Rows quiet for a day are deleted by the hourly sweep.
CREATE TABLE sign_in_address_attempts (
  key        text        NOT NULL,
  address    text        NOT NULL CHECK (char_length(address) BETWEEN 1 AND 64),
  attempts   integer     NOT NULL CHECK (attempts >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key, address)
);

CREATE INDEX sign_in_address_attempts_updated_idx ON sign_in_address_attempts (updated_at);
