-- At most one default connection per tenant (spec section 8, ERR_NO_OTHER_WHATSAPP),
-- held by the database so that concurrent writes can never leave two. Stores clear
-- the old default and set the new one in one transaction. A tenant that somehow has
-- several keeps its oldest.
UPDATE connections SET is_default = FALSE
WHERE is_default AND id NOT IN (SELECT min(id) FROM connections WHERE is_default GROUP BY company_id);
CREATE UNIQUE INDEX connections_one_default ON connections (company_id) WHERE is_default;
