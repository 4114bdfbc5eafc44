-- What an import (persistence/importwhaticket) wrote for each row of its source:
-- source names the imported installation, kind the source table ("contact",
-- "ticket", "user"…), source_id the row's id there, target_id the row Atende made
-- of it. A second run finds every row here and adds nothing; an interrupted run
-- continues with the rows missing. Kind "ticket.done" marks a ticket whose whole
-- stream is written (its target_id is the ticket).
CREATE TABLE import_map (
    company_id BIGINT NOT NULL,
    source     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    source_id  TEXT NOT NULL,
    target_id  BIGINT NOT NULL,
    PRIMARY KEY (company_id, source, kind, source_id)
);
