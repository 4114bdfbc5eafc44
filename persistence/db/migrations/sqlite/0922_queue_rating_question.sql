-- A queue's own satisfaction question (issue 14); empty sends the default question
-- (engine.QueueRatingQuestion).
ALTER TABLE queues ADD COLUMN rating_question TEXT NOT NULL DEFAULT '';
