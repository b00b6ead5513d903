// The keys a zod schema allows at a path, so that an unknown key (in the config file or a
// workflow file) can be answered with the key that was probably meant.
import { z } from "zod";

function unwrap(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional
    ? unwrap(schema.unwrap() as z.ZodType)
    : schema;
}

// Steps along `path` (a record takes any name, an array any index) to the object there.
export function keysAt(
  root: z.ZodType,
  path: readonly PropertyKey[],
): string[] {
  let schema = unwrap(root);
  for (const step of path) {
    if (schema instanceof z.ZodRecord) schema = schema.valueType as z.ZodType;
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else if (schema instanceof z.ZodObject) {
      const next = (schema.shape as Record<string, z.ZodType | undefined>)[
        String(step)
      ];
      if (!next) return [];
      schema = next;
    } else return [];
    schema = unwrap(schema);
  }
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}
