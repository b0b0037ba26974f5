-- Provider types beyond `openai`: most have a public default server, so base_url may be empty
-- (the SDK's default is used); a type's extra settings (azure resource_name, bedrock region) sit in options.
ALTER TABLE "providers" ALTER COLUMN "base_url" DROP NOT NULL;
ALTER TABLE "providers" ADD COLUMN "options" JSONB NOT NULL DEFAULT '{}';
