-- Media files of internal chat messages (persistence/readmodel/chats.go): the stored
-- file's path, the sender's file name and its kind (image, audio, video, document).
ALTER TABLE chat_messages ADD COLUMN media_path TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_messages ADD COLUMN media_name TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_messages ADD COLUMN media_type TEXT NOT NULL DEFAULT '';
