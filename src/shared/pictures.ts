/** The two sizes an item picture is kept in: a thumbnail for rows and grid cells, and the item panel's. */
export type PictureSize = 'thumb' | 'panel'
